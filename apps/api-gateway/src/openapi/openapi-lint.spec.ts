import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildOpenApi } from './openapi.builder';

const ROOT = path.resolve(__dirname, '../../../..');

/**
 * The document the gateway serves passes Redocly's recommended ruleset (tools/openapi/redocly.yaml
 * says which rule is off and why): no error and no warning.
 */
describe('OpenAPI lint (redocly)', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'openapi-lint-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('finds no problem in the served document', () => {
    const file = path.join(dir, 'openapi.json');
    writeFileSync(file, JSON.stringify(buildOpenApi({ serverUrl: 'https://api.crm.test', authUrl: 'https://auth.crm.test' })));
    const run = spawnSync(
      process.execPath,
      [
        require.resolve('@redocly/cli/bin/cli.js'),
        'lint',
        file,
        '--config',
        path.join(ROOT, 'tools/openapi/redocly.yaml'),
        '--format=json',
      ],
      {
        cwd: dir,
        encoding: 'utf8',
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
        timeout: 120_000,
      },
    );
    const report = JSON.parse(run.stdout) as {
      totals: { errors: number; warnings: number };
      problems: Array<{ ruleId: string; message: string }>;
    };
    expect(report.problems.map((p) => `${p.ruleId}: ${p.message}`)).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
    expect(run.status).toBe(0);
  });
});
