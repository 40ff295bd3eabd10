// Compiles apps/ and libs/ to dist/ with SWC (type checking is `npm run typecheck`).
// Output mirrors the source tree, so dist/apps/<app>/src/main.js runs with plain `node`.
import { createRequire } from 'node:module';
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const swc = require('@swc/core');
const swcOptions = require('./swc-options.cjs');

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outDir = path.join(root, 'dist');
const isSource = (f) => f.endsWith('.ts') && !f.endsWith('.d.ts') && !/\.(spec|test|e2e-spec|int-spec|medium-spec)\.ts$/.test(f);

async function* walk(dir) {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name === 'node_modules' || entry.name === 'test') continue;
      yield* walk(full);
    } else if (isSource(entry.name)) yield full;
  }
}

const started = Date.now();
await rm(outDir, { recursive: true, force: true });
const files = [];
for (const top of ['apps', 'libs']) for await (const f of walk(path.join(root, top))) files.push(f);

const options = swcOptions();
await Promise.all(
  files.map(async (file) => {
    const rel = path.relative(root, file).replace(/\.ts$/, '.js');
    const target = path.join(outDir, rel);
    const { code, map } = await swc.transformFile(file, {
      ...options,
      filename: file,
      outputPath: target,
      sourceFileName: path.relative(path.dirname(target), file),
    });
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, `${code}\n//# sourceMappingURL=${path.basename(target)}.map\n`);
    if (map) await writeFile(`${target}.map`, map);
  }),
);
console.log(`build: compiled ${files.length} files to dist/ in ${Date.now() - started} ms`);
