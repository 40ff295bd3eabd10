import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The transactional outbox of domain events (issue 7): written with the change, relayed to JetStream. */
export class Outbox1764000400000 implements MigrationInterface {
  name = 'Outbox1764000400000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE crm.outbox (
        seq bigserial PRIMARY KEY,
        event_id varchar(24) NOT NULL UNIQUE,
        account_id varchar(24) NOT NULL,
        type varchar(16) NOT NULL,
        reason varchar(64) NOT NULL,
        record_id varchar(24) NOT NULL,
        occurred_at timestamptz NOT NULL DEFAULT now(),
        data jsonb NOT NULL,
        published_at timestamptz
      )`);
    await q.query(`CREATE INDEX outbox_pending_idx ON crm.outbox (seq) WHERE published_at IS NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE crm.outbox`);
  }
}
