import type { FieldType } from '@crm/contracts';
import { many, sql, type Db, type SqlFragment } from '../common/sql';

/** A custom or company field's definition (crm.fields), as values are shown beside it. */
export interface FieldDefinitionRow {
  id: string;
  name: string;
  type: FieldType;
  position: number;
  choices: string[] | null;
}

/** Definitions of one field set of the account, in display order. */
export function fieldDefinitions(db: Db, accountId: string, set: 'custom_fields' | 'company_fields'): Promise<FieldDefinitionRow[]> {
  return many<FieldDefinitionRow>(db, fieldDefinitionsSql(accountId, set), { prepare: true });
}

/** {@link fieldDefinitions}' statement, to run alone or inside another. */
export function fieldDefinitionsSql(accountId: string, set: 'custom_fields' | 'company_fields'): SqlFragment {
  return sql`SELECT id, name, type, position, choices FROM crm.fields WHERE account_id = ${accountId} AND field_set = ${set}
        ORDER BY position, created_at, id`;
}
