import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An event carries on the request it came from (decisions.md "Tracing and metrics"): the request
 * id and, while tracing, the W3C traceparent of the span that wrote it, stored with the row in the
 * same transaction and published by the relay as JetStream message headers. Nullable: events
 * written outside a request (or before this migration) have none.
 */
export class OutboxTraceContext1764300200000 implements MigrationInterface {
  name = 'OutboxTraceContext1764300200000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE crm.outbox ADD COLUMN request_id varchar(128), ADD COLUMN traceparent varchar(55)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE crm.outbox DROP COLUMN request_id, DROP COLUMN traceparent`);
  }
}
