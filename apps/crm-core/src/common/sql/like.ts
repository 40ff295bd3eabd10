/** `%`, `_` and `\` stand for themselves in a LIKE pattern built from user text. */
export function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (c) => `\\${c}`);
}
