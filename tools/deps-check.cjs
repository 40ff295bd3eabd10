// Exit 0 when node_modules holds what package-lock.json asks for, else 1 with the reason on stdout.
// Used by scripts/lib.sh (with the project's Node, once node_modules has one).
// Compares contents, not times: npm's record of what it installed (node_modules/.package-lock.json)
// must have every package of the lock file at the same version; optional packages may be missing
// (other platforms' binaries are never installed).
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const read = (file) => JSON.parse(fs.readFileSync(path.join(root, file), 'utf8')).packages || {};

let wanted;
let installed;
try {
  wanted = read('package-lock.json');
  installed = read('node_modules/.package-lock.json');
} catch {
  console.log('node_modules looks incomplete (no node_modules/.package-lock.json)');
  process.exit(1);
}
for (const [key, entry] of Object.entries(wanted)) {
  if (key === '' || entry.optional || entry.devOptional) continue;
  const have = installed[key];
  if (!have || have.version !== entry.version) {
    const name = key.replace(/^.*node_modules\//, '');
    console.log(`node_modules differs from package-lock.json (${name}: ${have ? have.version : 'missing'}, lock ${entry.version})`);
    process.exit(1);
  }
}
