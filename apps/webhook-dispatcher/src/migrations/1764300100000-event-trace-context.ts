import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Every delivery of an event, retries included, goes out with the request id and trace context
 * its JetStream message carried (decisions.md "Tracing and metrics"): kept with the event.
 * Nullable: events without them (or taken before this migration) send none.
 */
export class EventTraceContext1764300100000 implements MigrationInterface {
  name = 'EventTraceContext1764300100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE webhooks.events ADD COLUMN request_id varchar(128), ADD COLUMN traceparent varchar(55)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE webhooks.events DROP COLUMN request_id, DROP COLUMN traceparent`);
  }
}
