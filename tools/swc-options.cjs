// One SWC configuration for the build (`npm run build`: the swc CLI reads .swcrc) and for jest
// (@swc/jest gets these options), so tests run exactly the code the services run. Path aliases
// (@crm/*, the same as tsconfig.base.json's paths; tools/swc-options.spec.ts checks it) are
// rewritten to relative imports. @swc/jest needs an absolute baseUrl.
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');

module.exports = function swcOptions() {
  const { $schema: _schema, ...options } = JSON.parse(fs.readFileSync(path.join(root, '.swcrc'), 'utf8'));
  return { ...options, jsc: { ...options.jsc, baseUrl: root } };
};
