import { readFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(__dirname, '..');
const readJson = (file: string) => JSON.parse(readFileSync(path.join(root, file), 'utf8')) as Record<string, unknown>;

describe('SWC configuration (.swcrc)', () => {
  it('rewrites the same @crm/* aliases as tsconfig.base.json', () => {
    const swcrc = readJson('.swcrc') as { jsc: { paths: unknown } };
    const tsconfig = readJson('tsconfig.base.json') as { compilerOptions: { paths: unknown } };
    expect(swcrc.jsc.paths).toEqual(tsconfig.compilerOptions.paths);
  });

  it('gives jest the build options with an absolute baseUrl', () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const swcOptions = require('./swc-options.cjs') as () => { jsc: { baseUrl: string; paths: unknown }; sourceMaps: boolean };
    const options = swcOptions();
    expect(options.jsc.baseUrl).toBe(root);
    expect(options.sourceMaps).toBe(true);
    expect(options).not.toHaveProperty('$schema');
  });

  it('builds with one swc CLI call that leaves out tests and declarations', () => {
    const { scripts } = readJson('package.json') as { scripts: Record<string, string> };
    expect(scripts.build).toMatch(/^swc apps libs --out-dir dist --config-file \.swcrc /);
    for (const pattern of ['**/*.spec.ts', '**/*.*-spec.ts', '**/*.d.ts']) expect(scripts.build).toContain(pattern);
  });
});
