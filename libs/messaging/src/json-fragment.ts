import { randomBytes } from 'node:crypto';

/**
 * A value whose JSON text is already known (such as a contact document stored as text): inside
 * {@link stringifyWithFragments} its text is spliced into the output as it is, without being parsed
 * and serialized again. Anywhere else (a plain `JSON.stringify`, a test) `toJSON` returns the value
 * itself, so a fragment always serializes to the same JSON, only more slowly.
 */
export abstract class JsonFragment {
  /** The value's JSON text: one complete JSON value. */
  abstract fragmentJson(): string;

  /** The value itself (by default the text parsed). */
  fragmentValue(): unknown {
    return JSON.parse(this.fragmentJson());
  }

  toJSON(): unknown {
    return splicing ? splicing(this.fragmentJson()) : this.fragmentValue();
  }
}

/** Set while stringifyWithFragments runs: records a fragment's text and returns its placeholder. */
let splicing: ((json: string) => string) | undefined;

/**
 * Placeholders: a string JSON.stringify writes as `"\u0001<nonce>:<n>"`. The nonce is drawn once
 * per process and never leaves it (every placeholder is replaced), so no string of a user's can
 * pose as one; a control character is escaped by JSON.stringify, so the text searched for is fixed.
 */
const NONCE = randomBytes(12).toString('hex');
const MARK = `\u0001${NONCE}:`;
const MARK_TEXT = `"\\u0001${NONCE}:`;

/**
 * `JSON.stringify(value)`, with the text of every {@link JsonFragment} in it spliced in as it is.
 * Synchronous, so fragments of concurrent requests cannot mix.
 */
export function stringifyWithFragments(value: unknown): string {
  const texts: string[] = [];
  const previous = splicing;
  splicing = (json) => `${MARK}${texts.push(json) - 1}`;
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } finally {
    splicing = previous;
  }
  if (text === undefined) throw new TypeError('stringifyWithFragments: the value has no JSON text');
  if (texts.length === 0) return text;
  let out = '';
  let from = 0;
  for (let at = text.indexOf(MARK_TEXT); at >= 0; at = text.indexOf(MARK_TEXT, from)) {
    const end = text.indexOf('"', at + MARK_TEXT.length);
    const fragment = texts[Number(text.slice(at + MARK_TEXT.length, end))];
    if (end < 0 || fragment === undefined) throw new Error('stringifyWithFragments: a placeholder without its fragment');
    out += text.slice(from, at) + fragment;
    from = end + 1;
  }
  return out + text.slice(from);
}

/**
 * An object that several places of one reply hold (a company that each of its contacts' wrappers
 * shows): serialized once, its text spliced wherever it stands. Its fields are its own (a copy of
 * the value's), so readers use it as the value; it must not change once serialized.
 */
class SharedJson extends JsonFragment {
  #json: string | undefined;

  constructor(value: object) {
    super();
    Object.assign(this, value);
  }

  fragmentJson(): string {
    return (this.#json ??= stringifyWithFragments({ ...this }));
  }

  override fragmentValue(): unknown {
    return { ...this };
  }
}

/** `value`, to be serialized once however many places of a reply hold it (see {@link SharedJson}). */
export function sharedJson<T extends object>(value: T): T {
  return new SharedJson(value) as unknown as T;
}
