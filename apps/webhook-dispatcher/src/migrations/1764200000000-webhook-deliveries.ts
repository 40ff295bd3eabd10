import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Deliveries (issue 7): each domain event taken from JetStream once (`events`), one delivery per
 * (event, webhook) — the unique key that makes a re-published or redelivered event harmless — and
 * the log of HTTP attempts. The retry schedule lives here (`next_attempt_at`, claimed with
 * FOR UPDATE SKIP LOCKED), not in JetStream, so hours-long retries hold no ack slot.
 */
export class WebhookDeliveries1764200000000 implements MigrationInterface {
  name = 'WebhookDeliveries1764200000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE webhooks.events (
        event_id varchar(24) PRIMARY KEY,
        account_id varchar(24) NOT NULL,
        type varchar(16) NOT NULL,
        reason varchar(64) NOT NULL,
        record_id varchar(24) NOT NULL,
        occurred_at bigint NOT NULL,
        published_at timestamptz NOT NULL,
        stream_seq bigint NOT NULL,
        data json NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE webhooks.deliveries (
        id varchar(24) PRIMARY KEY,
        event_id varchar(24) NOT NULL REFERENCES webhooks.events (event_id) ON DELETE CASCADE,
        webhook_id varchar(24) NOT NULL REFERENCES webhooks.webhooks (id) ON DELETE CASCADE,
        record_id varchar(24) NOT NULL,
        event_seq bigint NOT NULL,
        status varchar(16) NOT NULL DEFAULT 'pending',
        attempt_count int NOT NULL DEFAULT 0,
        tries int NOT NULL DEFAULT 0,
        next_attempt_at timestamptz,
        locked_by int,
        last_response_code int,
        last_duration_ms int,
        last_error varchar(300),
        created_at timestamptz NOT NULL DEFAULT now(),
        completed_at timestamptz,
        CONSTRAINT deliveries_event_webhook_key UNIQUE (event_id, webhook_id),
        CONSTRAINT deliveries_status_check CHECK (status IN ('pending', 'delivered', 'failed'))
      )`);
    // What is due and not claimed by a replica: the retry schedule.
    await q.query(
      `CREATE INDEX deliveries_due_idx ON webhooks.deliveries (next_attempt_at) WHERE status = 'pending' AND locked_by IS NULL`,
    );
    // First attempts of one record to one webhook go out in stream order.
    await q.query(
      `CREATE INDEX deliveries_first_attempt_idx ON webhooks.deliveries (webhook_id, record_id, event_seq) WHERE status = 'pending' AND attempt_count = 0`,
    );
    await q.query(`CREATE INDEX deliveries_claimed_idx ON webhooks.deliveries (locked_by) WHERE locked_by IS NOT NULL`);
    await q.query(`CREATE INDEX deliveries_log_idx ON webhooks.deliveries (webhook_id, created_at DESC, id DESC)`);
    await q.query(`CREATE INDEX deliveries_finished_idx ON webhooks.deliveries (completed_at) WHERE status <> 'pending'`);
    await q.query(`
      CREATE TABLE webhooks.delivery_attempts (
        id bigserial PRIMARY KEY,
        delivery_id varchar(24) NOT NULL REFERENCES webhooks.deliveries (id) ON DELETE CASCADE,
        attempted_at timestamptz NOT NULL,
        duration_ms int NOT NULL,
        response_code int,
        error varchar(300)
      )`);
    await q.query(`CREATE INDEX delivery_attempts_delivery_idx ON webhooks.delivery_attempts (delivery_id, id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE webhooks.delivery_attempts`);
    await q.query(`DROP TABLE webhooks.deliveries`);
    await q.query(`DROP TABLE webhooks.events`);
  }
}
