// Lets a tools/ script require() the TypeScript sources (apps/, libs/, tools/) as jest and the
// build compile them: SWC with the one shared configuration (tools/swc-options.cjs), in memory.
const Module = require('node:module');
const swc = require('@swc/core');
const swcOptions = require('../swc-options.cjs')();

const options = { ...swcOptions, sourceMaps: 'inline' };
Module._extensions['.ts'] = function compileTypeScript(module, filename) {
  const source = require('node:fs').readFileSync(filename, 'utf8');
  const { code } = swc.transformSync(source, { ...options, filename });
  module._compile(code, filename);
};
require('reflect-metadata');
