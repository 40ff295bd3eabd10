import { Injectable } from '@nestjs/common';
import { many, one, sql, type Db } from '../common/sql';
import type { StoredSettingsRow } from '../accounts/account.rules';

/** The account settings GET /bootstrap shows. */
export interface AccountSettingsRow extends StoredSettingsRow {
  id: string;
  name: string;
  region: string;
  lead_status_id: string;
}

/** A quick date option: how far ahead the caller's next actions were set, and how often. */
export interface NextActionDateRow {
  number: number;
  period: 'days' | 'weeks' | 'months';
  uses: number;
  days: number;
}

/** The caller's most recent next actions that `next_action_dates` reads (bounds the scan). */
export const NEXT_ACTIONS_READ = 500;
/** Contacts whose addresses `popular_countries` reads, the most recently changed first. */
export const CONTACTS_READ_FOR_COUNTRIES = 200;

@Injectable()
export class BootstrapRepository {
  /** The account's name, region, type, settings and cost setup with its lead status. */
  settings(db: Db, accountId: string): Promise<AccountSettingsRow> {
    return one(
      db,
      sql`SELECT a.id, a.name, a.region, a.account_type, a.settings, a.cost_setup, s.id AS lead_status_id
          FROM crm.accounts a JOIN crm.statuses s ON s.account_id = a.id AND s.is_lead
          WHERE a.id = ${accountId}`,
      { prepare: true },
    );
  }

  /**
   * One grouped query: the distance between the day each of the caller's NEXT_ACTIONS_READ latest
   * dated next actions (actions_dated_recent_idx, in that order) was created (in the account's time
   * zone) and its date, as a whole number of months when it is one,
   * else of weeks, else days (1 day to a year), by use, then nearest first; at most `limit`.
   */
  nextActionDates(db: Db, accountId: string, userId: string, timeZone: string, limit: number): Promise<NextActionDateRow[]> {
    return many(
      db,
      sql`WITH recent AS (
            SELECT a.date AS due, (a.created_at AT TIME ZONE ${timeZone})::date AS made
            FROM crm.actions a
            WHERE a.account_id = ${accountId} AND a.assignee_id = ${userId} AND a.status IN ('date', 'date_time') AND a.date IS NOT NULL
            ORDER BY a.created_at DESC
            LIMIT ${NEXT_ACTIONS_READ}::int
          ), spans AS (
            SELECT due - made AS days, age(due, made) AS span FROM recent WHERE due - made BETWEEN 1 AND 366
          ), periods AS (
            SELECT days,
                   CASE WHEN extract(day FROM span) = 0 THEN (extract(year FROM span) * 12 + extract(month FROM span))::int
                        WHEN days % 7 = 0 THEN days / 7 ELSE days END AS number,
                   CASE WHEN extract(day FROM span) = 0 THEN 'months' WHEN days % 7 = 0 THEN 'weeks' ELSE 'days' END AS period
            FROM spans
          )
          SELECT number, period, count(*)::int AS uses, min(days)::int AS days
          FROM periods GROUP BY number, period
          ORDER BY uses DESC, days, period
          LIMIT ${limit}::int`,
    );
  }

  /**
   * The last distinct countries of the most recently changed contacts' addresses, newest first; at
   * most `limit`. The contacts are read in contacts_modified_idx's order and the read stops at
   * CONTACTS_READ_FOR_COUNTRIES: no filter on the addresses there, which the planner cannot
   * estimate (it took them for rare and sorted every contact of the account instead).
   */
  async popularCountries(db: Db, accountId: string, limit: number): Promise<string[]> {
    const rows = await many<{ country: string }>(
      db,
      sql`SELECT country FROM (
            SELECT upper(e->>'country_code') AS country, max(c.modified_at) AS at
            FROM (SELECT address_list, modified_at FROM crm.contacts
                  WHERE account_id = ${accountId} AND deleted_at IS NULL
                  ORDER BY modified_at DESC LIMIT ${CONTACTS_READ_FOR_COUNTRIES}::int) c,
                 jsonb_array_elements(CASE WHEN jsonb_typeof(c.address_list) = 'array' THEN c.address_list ELSE '[]' END) e
            WHERE coalesce(e->>'country_code', '') <> ''
            GROUP BY 1
          ) x
          ORDER BY at DESC, country
          LIMIT ${limit}::int`,
    );
    return rows.map((r) => r.country);
  }
}
