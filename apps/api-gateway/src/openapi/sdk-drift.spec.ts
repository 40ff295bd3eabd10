import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { buildOpenApi, SDK_DOCUMENT_URLS } from './openapi.builder';

const ROOT = path.resolve(__dirname, '../../../..');

// libs/sdk carries a copy of the document the gateway serves and the types generated from it:
// change a route, a request class or a reply type and these fail until `npm run sdk:generate`.
describe('the SDK and the served OpenAPI document', () => {
  it('libs/sdk/openapi.json is the document the gateway builds', () => {
    const committed = JSON.parse(readFileSync(path.join(ROOT, 'libs/sdk/openapi.json'), 'utf8')) as unknown;
    expect(committed).toEqual(JSON.parse(JSON.stringify(buildOpenApi(SDK_DOCUMENT_URLS))));
  });

  it('libs/sdk/src/schema.d.ts (and everything else sdk:generate writes) is what the generator makes now', () => {
    const run = spawnSync(process.execPath, [path.join(ROOT, 'tools/sdk-generate.mjs'), '--check'], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 180_000,
    });
    expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: '' });
    expect(run.stdout).toContain('libs/sdk/src/schema.d.ts is up to date');
  });
});
