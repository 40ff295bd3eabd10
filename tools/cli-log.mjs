// Messages of the bring-up tools (tools/up.mjs, tools/infra.mjs), in the format of scripts/lib.sh:
// `[up] text` on stderr, numbered steps, and failures that say what to do next.
const color = process.stderr.isTTY && !process.env.NO_COLOR;
const paint = (code, text) => (color ? `\x1b[${code}m${text}\x1b[0m` : text);

/** A failure the user can act on: `hints` are printed as "-> ..." lines under the message. */
export class UpError extends Error {
  constructor(message, ...hints) {
    super(message);
    this.hints = hints;
  }
}

export function createLog(prefix) {
  const head = paint(1, `[${prefix}]`);
  const write = (text) => process.stderr.write(`${head} ${text}\n`);
  let stepNo = Number(process.env.UP_STEPS_DONE) || 0;
  let stepTotal = 0;
  return {
    info: write,
    ok: (text) => write(paint(32, text)),
    warn: (text) => write(`${paint(33, 'WARNING:')} ${text}`),
    error: (text) => write(`${paint(31, 'ERROR:')} ${text}`),
    /** Says aloud what is about to change on this machine, before it changes. */
    change: (text) => write(`${paint(33, 'changing this machine:')} ${text}`),
    hint: (text) => write(`  -> ${text}`),
    total: (n) => {
      stepTotal = n;
    },
    step: (title) => {
      stepNo += 1;
      write(paint(1, `[${stepNo}/${stepTotal}]`) + ` ${title}`);
    },
    /** Prints an UpError (or any error) with its hints. */
    fail(error) {
      this.error(error.message);
      for (const hint of error.hints ?? []) this.hint(hint);
    },
  };
}
