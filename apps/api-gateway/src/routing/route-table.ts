import { API_ROUTES, type HttpMethod, type RouteDeclaration } from '@crm/contracts';

/** An API route matched by a request, with its path parameters (decoded). */
export interface ResolvedRoute {
  route: RouteDeclaration;
  params: Record<string, string>;
}

export type RouteResolution =
  | { kind: 'match'; route: RouteDeclaration; params: Record<string, string> }
  | { kind: 'not_found' }
  | { kind: 'method_not_allowed'; allowed: HttpMethod[] };

/** A literal segment, or the name of a parameter (`{contact_id}`) that takes any non-empty segment. */
type Segment = { literal: string } | { param: string };

interface CompiledRoute {
  route: RouteDeclaration;
  segments: Segment[];
}

function compile(route: RouteDeclaration): CompiledRoute {
  const segments = route.path.split('/').map((segment): Segment => {
    const isParam = segment.length > 2 && segment.startsWith('{') && segment.endsWith('}');
    return isParam ? { param: segment.slice(1, -1) } : { literal: segment };
  });
  return { route, segments };
}

/**
 * The path without trailing slashes (the root stays `/`) and without the optional `.json` suffix.
 * Plain string scans, no regular expression: the path is raw client input (decisions.md "Request
 * input bounds, routing and metrics").
 */
export function normalizePath(path: string): string {
  let end = path.length;
  while (end > 1 && path.charCodeAt(end - 1) === 0x2f) end -= 1;
  const trimmed = path.slice(0, end);
  return trimmed.endsWith('.json') ? trimmed.slice(0, -'.json'.length) : trimmed;
}

/**
 * Matches an API path to its declaration, segment by segment. The optional `.json` suffix of the
 * last segment is handled here, once, for every route. A path that exists with other methods is
 * 405, else 404.
 */
export class RouteTable {
  private readonly routes: CompiledRoute[];

  constructor(routes: readonly RouteDeclaration[] = API_ROUTES) {
    this.routes = routes.map(compile);
  }

  resolve(method: string, path: string): RouteResolution {
    const segments = normalizePath(path).split('/');
    const allowed: HttpMethod[] = [];
    // HEAD is GET without a body (RFC 9110 9.3.2); Node's HTTP server drops the body itself.
    const wanted = method.toUpperCase() === 'HEAD' ? 'GET' : method.toUpperCase();
    for (const compiled of this.routes) {
      const params = matchSegments(compiled.segments, segments);
      if (!params) continue;
      if (compiled.route.method !== wanted) {
        allowed.push(compiled.route.method);
        continue;
      }
      return { kind: 'match', route: compiled.route, params };
    }
    return allowed.length > 0 ? { kind: 'method_not_allowed', allowed } : { kind: 'not_found' };
  }
}

function matchSegments(pattern: Segment[], segments: string[]): Record<string, string> | null {
  if (pattern.length !== segments.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i += 1) {
    const expected = pattern[i];
    const actual = segments[i];
    if ('literal' in expected) {
      if (expected.literal !== actual) return null;
    } else {
      if (actual.length === 0) return null;
      params[expected.param] = safeDecode(actual);
    }
  }
  return params;
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
