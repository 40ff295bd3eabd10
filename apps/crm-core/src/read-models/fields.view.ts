import type { FieldRefDto } from '@crm/contracts';
import type { FieldDefinitionRow } from './fields.repository';

/** A field's definition as shown beside a value: `choices` only for the two choice types. */
export function toFieldRef(row: FieldDefinitionRow): FieldRefDto {
  const ref: FieldRefDto = { id: row.id, name: row.name, type: row.type, position: row.position };
  if (row.choices !== null) ref.choices = row.choices;
  return ref;
}

/** Stored values (field id -> value) as the API's `[{ <key>: field, value }]`, in field order; values of deleted fields vanish. */
export function fieldValues<K extends string>(
  stored: Record<string, unknown>,
  definitions: FieldDefinitionRow[],
  key: K,
): Array<Record<K, FieldRefDto> & { value: unknown }> {
  const out: Array<Record<K, FieldRefDto> & { value: unknown }> = [];
  for (const def of definitions) {
    const value = stored[def.id];
    if (value === undefined || value === null) continue;
    out.push({ [key]: toFieldRef(def), value } as Record<K, FieldRefDto> & { value: unknown });
  }
  return out;
}
