import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ApiError } from '../errors/api-error';
import { assertKnownParameters, contractProperties, parseContract } from '../validation/parse-contract';
import { API_ROUTES } from './api-routes';
import type { RouteDeclaration } from './route-declaration';

/**
 * Every query parameter OnePageCRM documents (test/fixtures/onepagecrm-query-params.json, written
 * by tools/onepagecrm-query-params.mjs from its swagger.yaml) is taken by our route's request
 * class, unless listed here: a value we refuse (`sent`), with the reason (docs/decisions.md
 * "Query parameters (issue 13, item 5)"). The API answers it 400 naming the parameter.
 */

interface Fixture {
  operations: Record<string, string[]>;
}

const fixture = JSON.parse(readFileSync(join(__dirname, '../../../../test/fixtures/onepagecrm-query-params.json'), 'utf8')) as Fixture;

const shape = (path: string) => path.replace(/\{[a-z_]+\}/g, '{}');
const routeOf = new Map(API_ROUTES.map((r) => [`${r.method} ${shape(r.path)}`, r]));

describe("OnePageCRM's documented query parameters", () => {
  const operations = Object.entries(fixture.operations);

  it('reads the fixture of all 166 operations', () => {
    expect(operations).toHaveLength(166);
  });

  it.each(operations)('%s takes every documented query parameter', (operation, names) => {
    const [method, path] = operation.split(' ');
    const route = routeOf.get(`${method} ${shape(path)}`);
    expect(route).toBeDefined();
    const taken = contractProperties(route!.request);
    expect(names.filter((name) => !taken.has(name))).toEqual([]);
  });

  it('takes DELETE /actions/{action_id}?undo as a flag (the last parameter once refused): true restores, a non-flag is 400 by name', () => {
    const route = routeOf.get(`DELETE ${shape('/actions/{action_id}')}`)!;
    expect(refusal(route, { undo: 'true' })).toEqual([]);
    expect(refusal(route, { undo: 'maybe' })).toEqual(['undo']);
  });

  it("reads OnePageCRM's updated_at as modified_at in every sort_by and date_filter that takes modified_at", () => {
    let checked = 0;
    for (const route of API_ROUTES) {
      const params = Object.fromEntries([...route.path.matchAll(/\{([a-z_]+)\}/g)].map(([, name]) => [name, 'x']));
      for (const key of ['sort_by', 'date_filter'] as const) {
        if (!contractProperties(route.request).has(key)) continue;
        let takesModified = true;
        try {
          parseContract(route.request, { ...params, [key]: 'modified_at' });
        } catch {
          takesModified = false;
        }
        if (!takesModified) continue;
        let parsed: Record<string, unknown> = {};
        try {
          parsed = parseContract(route.request, { ...params, [key]: 'Updated_At' }) as Record<string, unknown>;
        } catch (error) {
          parsed = { [key]: (error as ApiError).errors };
        }
        expect({ route: route.operationId, [key]: parsed[key] }).toEqual({ route: route.operationId, [key]: 'modified_at' });
        checked += 1;
      }
    }
    expect(checked).toBeGreaterThan(40);
  });

  it('answers a misspelt parameter of any route 400 naming it, reads and writes alike', () => {
    for (const route of API_ROUTES)
      expect({ route: route.operationId, refused: refusal(route, { ordr: 'asc' }) }).toEqual({
        route: route.operationId,
        refused: ['ordr'],
      });
  });
});

/** The fields a request with `query` (and "x" for each path parameter) is refused for, as the gateway checks it. */
function refusal(route: RouteDeclaration, query: Record<string, string>): string[] {
  const params = Object.fromEntries([...route.path.matchAll(/\{([a-z_]+)\}/g)].map(([, name]) => [name, 'x']));
  try {
    assertKnownParameters(route.request, query);
    parseContract(route.request, { ...query, ...params });
  } catch (error) {
    if (error instanceof ApiError) return Object.keys(error.errors).filter((field) => field in query);
    throw error;
  }
  return [];
}
