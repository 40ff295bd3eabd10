import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A write's Idempotency-Key and its outcome, recorded in the write's own transaction
 * (docs/decisions.md "Idempotency recorded with the write"). `key` is the gateway's scoped key
 * (SHA-256 of user, auth method, client and the client's key); the row is inserted first in the
 * write's transaction, so a concurrent request with the same key waits on the primary key and
 * then reads the committed outcome, or takes over when the first rolled back. `status` and
 * `kept` are set before COMMIT: `reply` holds the reply as sent when `kept` is 'reply'; 'secret'
 * and 'too_large' keep no reply (a repeat is 409). Rows older than 24 hours are purged in bounded
 * batches along `created_at`.
 */
export class IdempotencyKeys1764801400000 implements MigrationInterface {
  name = 'IdempotencyKeys1764801400000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE TABLE crm.idempotency_keys (
         account_id varchar(24) NOT NULL,
         key text NOT NULL,
         fingerprint text NOT NULL,
         status smallint,
         kept text CHECK (kept IN ('reply', 'secret', 'too_large')),
         reply text,
         created_at timestamptz NOT NULL DEFAULT now(),
         PRIMARY KEY (account_id, key)
       )`,
    );
    await q.query(`CREATE INDEX idempotency_keys_created_idx ON crm.idempotency_keys (created_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE crm.idempotency_keys`);
  }
}
