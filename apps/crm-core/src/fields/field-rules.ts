import { ApiError, hasChoices, type FieldType } from '@crm/contracts';

/**
 * The choices a field of this type keeps: a non-empty list of distinct (case-insensitively)
 * strings for select_box and multiple_choice, none (null) for every other type. Anything else is
 * 400 invalid_request_data keyed `choices`. The strings arrive trimmed and non-empty (contract).
 */
export function checkChoices(type: FieldType, choices: readonly string[] | null | undefined): string[] | null {
  if (!hasChoices(type)) {
    if (choices !== undefined && choices !== null)
      throw ApiError.invalid({ choices: `choices are only allowed for select_box and multiple_choice fields, not ${type}` });
    return null;
  }
  if (!choices || choices.length === 0)
    throw ApiError.invalid({ choices: `choices are required for ${type} fields (a non-empty array of strings)` });
  const seen = new Set<string>();
  for (const choice of choices) {
    const key = choice.toLowerCase();
    if (seen.has(key)) throw ApiError.invalid({ choices: `choices must be distinct (regardless of letter case): "${choice}" is repeated` });
    seen.add(key);
  }
  return [...choices];
}

/**
 * A field's type never changes after creation: values already stored on contacts, companies or
 * deals would no longer match it. Sending the current type is fine (a PUT may echo the record).
 */
export function checkTypeUnchanged(current: FieldType, requested: FieldType | undefined): void {
  if (requested !== undefined && requested !== current) {
    throw ApiError.invalid({ type: `the type of a field cannot be changed (it is ${current}); create a new field instead` });
  }
}
