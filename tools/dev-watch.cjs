// What `npm run dev` (tools/dev-run.mjs --watch) rebuilds and restarts when a source file changes.
const path = require('node:path');

/** A source file the build compiles (package.json "build": no tests, no declarations). */
function isBuildSource(rel) {
  const file = rel.split(path.sep).join('/');
  if (!/^(apps|libs)\/.+\.ts$/.test(file)) return false;
  return !/\.(spec|test|[a-z0-9]+-spec|d)\.ts$/.test(file) && !file.split('/').includes('node_modules');
}

/** dist/ file of a compiled source file, relative to the repository. */
function outputOf(rel) {
  return path.join('dist', rel.replace(/\.ts$/, '.js'));
}

/**
 * The services to restart after the compiled output of `changed` (source paths relative to the
 * repository) changed: apps/<app>/... restarts that app, libs/... restarts every app (the simple
 * rule that is always right: every app imports libs). Returned in the order of `apps`.
 */
function servicesFor(changed, apps) {
  const hit = new Set();
  for (const rel of changed) {
    const [top, name] = rel.split(path.sep).join('/').split('/');
    if (top === 'libs') return [...apps];
    if (top === 'apps' && apps.includes(name)) hit.add(name);
  }
  return apps.filter((app) => hit.has(app));
}

module.exports = { isBuildSource, outputOf, servicesFor };
