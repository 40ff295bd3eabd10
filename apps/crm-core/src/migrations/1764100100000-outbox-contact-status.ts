import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The status of the contact an event is about, so the dispatcher can apply a webhook's status_id
 * filter without calling back into crm-core.
 */
export class OutboxContactStatus1764100100000 implements MigrationInterface {
  name = 'OutboxContactStatus1764100100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE crm.outbox ADD COLUMN contact_status_id varchar(24)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE crm.outbox DROP COLUMN contact_status_id`);
  }
}
