import type { Db } from '../common/sql';
import { savedFilterSql } from './filters.repository';

/** A condition over `crm.contacts` aliased `c` as text with positional parameters from `firstParam`. */
export interface SqlCondition {
  sql: string;
  params: unknown[];
}

/**
 * The saved filter's condition as positional text, for callers that still build their statement
 * by counting parameters. New code takes the fragment: `savedFilterSql` (filters.repository.ts).
 * @deprecated use savedFilterSql
 */
export async function savedFilterCondition(db: Db, accountId: string, filterId: string, firstParam: number): Promise<SqlCondition> {
  const { text, values } = (await savedFilterSql(db, accountId, filterId)).compile();
  return { sql: text.replace(/\$(\d+)/g, (_m, n: string) => `$${Number(n) + firstParam - 1}`), params: values };
}
