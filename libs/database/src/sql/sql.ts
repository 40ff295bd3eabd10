/**
 * SQL as tagged templates: `sql\`SELECT ... WHERE id = ${id}\`` keeps each value beside the place
 * it fills, and compiles to one parameterized statement ($1, $2, ...) at execution. A value that
 * is itself a {@link SqlFragment} is spliced in (with its own values), so conditions compose
 * without counting placeholders. Text never comes from input: only `sql.raw` inserts text, and
 * only for identifiers chosen from an allow-list in code.
 */
export class SqlFragment {
  constructor(
    readonly strings: readonly string[],
    readonly values: readonly unknown[],
  ) {}

  /** The statement with $n placeholders and its values. */
  compile(): { text: string; values: unknown[] } {
    const values: unknown[] = [];
    const text = this.render(values);
    return { text, values };
  }

  private render(values: unknown[]): string {
    let text = this.strings[0];
    for (let i = 0; i < this.values.length; i++) {
      const value = this.values[i];
      if (value instanceof SqlFragment) text += value.render(values);
      else {
        values.push(value);
        text += `$${values.length}`;
      }
      text += this.strings[i + 1];
    }
    return text;
  }
}

export type Sql = SqlFragment;

function template(strings: TemplateStringsArray, ...values: unknown[]): SqlFragment {
  return new SqlFragment([...strings], values);
}

/** Fragments joined by `separator` (text, e.g. ' AND ' or ', '); empty input gives an empty fragment. */
function join(parts: readonly SqlFragment[], separator: string): SqlFragment {
  if (parts.length === 0) return EMPTY;
  const strings = ['', ...parts.slice(1).map(() => separator), ''];
  return new SqlFragment(strings, parts);
}

/** Trusted text (an identifier from an allow-list in code, never input). */
function raw(text: string): SqlFragment {
  return new SqlFragment([text], []);
}

const EMPTY = new SqlFragment([''], []);

/** `a AND b AND ...`, or `true` when there is no condition. */
function and(parts: readonly SqlFragment[]): SqlFragment {
  return parts.length === 0 ? raw('true') : join(parts, ' AND ');
}

export const sql = Object.assign(template, { join, raw, and, empty: EMPTY });
