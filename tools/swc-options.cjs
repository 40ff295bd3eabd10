// One SWC configuration for the build (tools/build.mjs) and for jest (@swc/jest), so tests run
// exactly the code the services run. Path aliases (@crm/*) are rewritten to relative imports.
const path = require('node:path');
const { compilerOptions } = require('../tsconfig.base.json');

const root = path.resolve(__dirname, '..');

module.exports = function swcOptions() {
  return {
    sourceMaps: true,
    module: { type: 'commonjs', ignoreDynamic: true, strict: true },
    jsc: {
      target: 'es2023',
      parser: { syntax: 'typescript', decorators: true, dynamicImport: true },
      transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
      keepClassNames: true,
      baseUrl: root,
      paths: compilerOptions.paths,
    },
  };
};
