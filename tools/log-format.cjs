// How the development runners (tools/dev-run.mjs, tools/up.mjs) show the services' logs. The
// services always write JSON lines (pino); in development they are turned into readable lines
// with pino-pretty, in production (NODE_ENV=production) they stay JSON. LOG_FORMAT=pretty|json
// overrides both.

/** 'pretty' or 'json' for this environment. */
function logFormat(env = process.env) {
  const asked = (env.LOG_FORMAT || '').toLowerCase();
  if (asked === 'pretty' || asked === 'json') return asked;
  return env.NODE_ENV === 'production' ? 'json' : 'pretty';
}

/**
 * A function from one output line of a service to the lines to print: a JSON log line becomes
 * `HH:MM:ss.l LEVEL: message {fields}` (an error's stack on the lines below); anything else, and
 * every line in json format, is kept as it is.
 */
function createLineFormatter({ format, colorize = false }) {
  if (format !== 'pretty') return (line) => [line];
  const { prettyFactory } = require('pino-pretty');
  const pretty = prettyFactory({
    colorize,
    singleLine: true,
    translateTime: 'SYS:HH:MM:ss.l',
    // The runner's prefix names the service; pid and hostname are noise on one machine.
    ignore: 'pid,hostname,service',
  });
  return (line) => {
    if (!line.startsWith('{')) return [line];
    let entry;
    try {
      entry = JSON.parse(line);
    } catch {
      return [line];
    }
    if (entry === null || typeof entry !== 'object' || !('level' in entry)) return [line];
    return pretty(entry).replace(/\n$/, '').split('\n');
  };
}

module.exports = { logFormat, createLineFormatter };
