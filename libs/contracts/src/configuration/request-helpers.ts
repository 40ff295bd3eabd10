/** Trims a string input; anything else passes through to be refused by its validator. */
export const trim = ({ value }: { value: unknown }): unknown => (typeof value === 'string' ? value.trim() : value);

/** Boolean query values: true/false in any letter case and 1/0 (decisions.md "Requests"). */
export function toBoolean({ value }: { value: unknown }): unknown {
  if (typeof value !== 'string') return value;
  const v = value.trim().toLowerCase();
  if (v === 'true' || v === '1') return true;
  if (v === 'false' || v === '0') return false;
  return value;
}
