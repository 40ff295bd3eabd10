import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A contact's row is updated far more often than it is created: every note sets its
 * `last_activity_at`, every deal write its deal counters (deals_counters_* triggers). None of those
 * columns is indexed, so PostgreSQL can write the new version on the same page without touching
 * the ten indexes (a HOT update: no new entries in the trigram GIN index or the nine btrees) when
 * the page has room. With the default fillfactor of 100 a page is filled to the brim and the first
 * update of most contacts moves the row to another page, with an entry in every index. 80 % leaves
 * each page room for a few new versions, which HOT pruning reclaims. Measured on 50,000 contacts:
 * a deal insert's transaction 0.52 -> 0.43 ms of PostgreSQL CPU, a note's contact update 0.31 -> 0.25,
 * with every contact update HOT instead of one in eight (decisions.md "HOT updates of contacts").
 *
 * The setting applies to pages written from now on; an existing table gets it for its old pages
 * when it is rewritten (VACUUM FULL or pg_repack at a quiet time), which this migration does not
 * do: it would lock the table.
 */
export class ContactsFillfactor1764800700000 implements MigrationInterface {
  name = 'ContactsFillfactor1764800700000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE crm.contacts SET (fillfactor = 80)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE crm.contacts RESET (fillfactor)`);
  }
}
