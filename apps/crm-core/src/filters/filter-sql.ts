import type { EntityManager } from 'typeorm';

/** A SQL condition over `crm.contacts` aliased `c`, with its parameters numbered from `firstParam`. */
export interface SqlCondition {
  sql: string;
  params: unknown[];
}

/**
 * The condition of a saved filter (`filter_id` on GET /contacts and GET /deals) over contacts
 * aliased `c`; 404 resource_not_found when the filter is not the account's.
 */
export async function savedFilterCondition(_m: EntityManager, _accountId: string, _filterId: string, _firstParam: number): Promise<SqlCondition> {
  throw new Error('savedFilterCondition: not implemented yet (issue 4)');
}
