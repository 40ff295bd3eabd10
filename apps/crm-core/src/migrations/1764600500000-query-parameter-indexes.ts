import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The query parameters of issue 13, item 5. GET /companies?letter= and ?phone= get indexes whose
 * expressions are the companies repository's LETTER_SQL and PHONE_DIGITS_SQL (keep them
 * identical): each filter is an index scan within the account, never a scan of its companies.
 * Contact relationships get modified_at (their time filters and sort_by=modified_at; a replace or
 * an undo moves it), backfilled from created_at. The date_filter values OnePageCRM documents for
 * notes (date), calls (call_time), meetings (meeting_time) and actions (close_date: done_at) get an
 * index per account, as created_at has, so a range reads only the records in it.
 */
export class QueryParameterIndexes1764600500000 implements MigrationInterface {
  name = 'QueryParameterIndexes1764600500000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE INDEX companies_letter_idx ON crm.companies
        (account_id, (CASE WHEN ascii(lower(name)) BETWEEN 97 AND 122 THEN chr(ascii(lower(name))) ELSE '1' END), lower(name), id)`);
    await q.query(
      `CREATE INDEX companies_phone_idx ON crm.companies (account_id, regexp_replace(phone, '\\D', '', 'g')) WHERE phone <> ''`,
    );
    await q.query(`CREATE INDEX notes_account_date_idx ON crm.notes (account_id, date)`);
    await q.query(`CREATE INDEX calls_account_time_idx ON crm.calls (account_id, call_time_int)`);
    await q.query(`CREATE INDEX meetings_account_time_idx ON crm.meetings (account_id, meeting_time_int)`);
    await q.query(`CREATE INDEX actions_account_done_at_idx ON crm.actions (account_id, done_at) WHERE done_at IS NOT NULL`);
    await q.query(`ALTER TABLE crm.contact_relationships ADD COLUMN modified_at timestamptz`);
    await q.query(`UPDATE crm.contact_relationships SET modified_at = created_at`);
    await q.query(
      `ALTER TABLE crm.contact_relationships ALTER COLUMN modified_at SET DEFAULT now(), ALTER COLUMN modified_at SET NOT NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE crm.contact_relationships DROP COLUMN modified_at`);
    for (const index of ['actions_account_done_at_idx', 'meetings_account_time_idx', 'calls_account_time_idx', 'notes_account_date_idx'])
      await q.query(`DROP INDEX crm.${index}`);
    await q.query(`DROP INDEX crm.companies_phone_idx`);
    await q.query(`DROP INDEX crm.companies_letter_idx`);
  }
}
