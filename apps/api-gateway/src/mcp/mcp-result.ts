import { MCP_MAX_RESULT_CHARS } from '@crm/contracts';

/** Longest string kept whole in an answer; longer ones end with an ellipsis and their length. */
const MAX_STRING = 2_000;
/** Array lengths tried, longest first, until the answer fits. */
const ARRAY_STEPS = [Infinity, 25, 10, 3];

/** Drops what carries nothing for an assistant: null, empty strings, arrays and objects. */
function compact(value: unknown, maxString: number, maxArray: number): unknown {
  if (typeof value === 'string') return value.length > maxString ? `${value.slice(0, maxString)}… (${value.length} characters)` : value;
  if (Array.isArray(value)) {
    const items = value.slice(0, maxArray).map((item) => compact(item, maxString, maxArray));
    return value.length > maxArray ? [...items, `… ${value.length - maxArray} more`] : items;
  }
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    const kept = compact(inner, maxString, maxArray);
    if (kept === null || kept === undefined || kept === '') continue;
    if (Array.isArray(kept) && kept.length === 0) continue;
    if (typeof kept === 'object' && !Array.isArray(kept) && Object.keys(kept).length === 0) continue;
    out[key] = kept;
  }
  return out;
}

/**
 * An API answer as a tool result: compacted, and never longer than {@link MCP_MAX_RESULT_CHARS}
 * characters of JSON (long texts and arrays are shortened, and say so, until it fits).
 */
export function boundedResult(value: unknown, maxChars = MCP_MAX_RESULT_CHARS): { json: unknown; text: string; shortened: boolean } {
  for (const [step, maxArray] of ARRAY_STEPS.entries()) {
    const json = compact(value, step === 0 ? MAX_STRING : 500, maxArray);
    const text = JSON.stringify(json);
    if (text.length <= maxChars) return { json, text, shortened: step > 0 };
  }
  const message = {
    shortened: true,
    note: `The answer is larger than ${maxChars} characters even shortened; ask for fewer records (per_page) or one record by id.`,
  };
  return { json: message, text: JSON.stringify(message), shortened: true };
}
