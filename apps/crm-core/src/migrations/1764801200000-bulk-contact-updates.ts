import type { MigrationInterface, QueryRunner } from 'typeorm';
import { DEALS_COMPANY_FUNCTION } from './1764200100000-deals-company';
import {
  OWNER_UPDATE_FUNCTION,
  contribution as ownerContribution,
  counterFunction as ownerCounterFunction,
} from './1764700000000-owner-contact-counters';
import {
  GROUP_UPDATE_FUNCTION,
  contribution as groupContribution,
  counterFunction as groupCounterFunction,
} from './1764801000000-contact-group-counters';

/**
 * A bulk UPDATE of contacts (a deleted status moving its contacts to the lead status, a bulk
 * delete, a tag or next action given to thousands of contacts) took time quadratic or worse in its
 * rows once the connection had run single-row updates: the statement triggers' change tests joined
 * their transition tables (`id IN (SELECT o.id FROM old_rows o JOIN new_rows n ...)`, or `EXISTS`
 * over that join). PostgreSQL plans a trigger function's statement once per connection and keeps
 * the plan, sized for the transition tables of its first run (one row: nested loops), and
 * crm-core's connections force generic plans anyway. 1,000 contacts took over a minute on a
 * connection that had updated single contacts before; 3,000 in a fresh one, 0.3 s.
 *
 * The change tests of the contacts' UPDATE triggers (per-owner counters, group counters, deals'
 * company) are now `EXCEPT` of the compared columns (a set operation: hashed or sorted, linear
 * whatever plan is cached), and the counters add every row's contribution, old rows negated:
 * unchanged rows cancel in the grouping (decisions.md "Bulk updates of contacts stay linear").
 */

/** `IF` nothing of `columns` (expressions over a transition table's row, the id first) changed, return. */
export function unchangedReturn(columns: string): string {
  return `IF NOT EXISTS (SELECT ${columns} FROM new_rows EXCEPT SELECT ${columns} FROM old_rows) THEN
        RETURN NULL;
      END IF;`;
}

/** `fn` (a CREATE FUNCTION of the counters' generators) with `guard` first in its body. */
function guarded(fn: string, guard: string): string {
  const at = fn.indexOf('BEGIN') + 'BEGIN'.length;
  return `${fn.slice(0, at)}\n      ${guard}${fn.slice(at)}`;
}

const OWNER_FUNCTION = guarded(
  ownerCounterFunction('contacts_owner_counters_update', [ownerContribution('new_rows', ''), ownerContribution('old_rows', '-')]),
  unchangedReturn('id, owner_id, deleted_at IS NULL'),
);

const GROUP_FUNCTION = guarded(
  groupCounterFunction('contacts_group_counters_update', [groupContribution('new_rows', ''), groupContribution('old_rows', '-')]),
  unchangedReturn('id, deleted_at IS NULL, owner_id, status_id, lead_source_id, letter, starred, pending_deals_count > 0'),
);

/** The contacts whose company or deleted state changed, as new rows (a set difference, no join). */
const MOVED = `(SELECT id, company_id, deleted_at FROM new_rows EXCEPT SELECT id, company_id, deleted_at FROM old_rows)`;

const DEALS_FUNCTION = `
  CREATE OR REPLACE FUNCTION crm.contacts_deals_company() RETURNS trigger LANGUAGE plpgsql AS $fn$
  BEGIN
    -- A statement trigger fires even when no row changed (the counters triggers' UPDATEs of 0 rows):
    -- without this test, the UPDATE below would fire the deals counters trigger, which updates
    -- crm.contacts, which fires this trigger again, without end.
    ${unchangedReturn('id, company_id, deleted_at')}
    UPDATE crm.deals d
    SET company_id = CASE WHEN n.deleted_at IS NULL THEN n.company_id END
    FROM ${MOVED} n
    WHERE d.contact_id = n.id AND d.company_id IS DISTINCT FROM (CASE WHEN n.deleted_at IS NULL THEN n.company_id END);
    RETURN NULL;
  END
  $fn$`;

export class BulkContactUpdates1764801200000 implements MigrationInterface {
  name = 'BulkContactUpdates1764801200000';

  async up(q: QueryRunner): Promise<void> {
    for (const fn of [OWNER_FUNCTION, GROUP_FUNCTION, DEALS_FUNCTION]) await q.query(fn);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const fn of [OWNER_UPDATE_FUNCTION, GROUP_UPDATE_FUNCTION, DEALS_COMPANY_FUNCTION]) await q.query(fn);
  }
}
