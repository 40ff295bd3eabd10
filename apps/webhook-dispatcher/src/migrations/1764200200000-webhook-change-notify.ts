import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Every change of a webhook row (registration API, status fallback, 410) NOTIFYs its account on
 * `webhooks_changed`, so the replica that takes events from the stream can keep the account's
 * webhooks in memory and still see a change within milliseconds.
 */
export class WebhookChangeNotify1764200200000 implements MigrationInterface {
  name = 'WebhookChangeNotify1764200200000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION webhooks.notify_webhook_change() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('webhooks_changed', COALESCE(NEW.account_id, OLD.account_id));
        RETURN NULL;
      END $$`);
    await q.query(
      `CREATE TRIGGER webhooks_change_notify AFTER INSERT OR UPDATE OR DELETE ON webhooks.webhooks FOR EACH ROW EXECUTE FUNCTION webhooks.notify_webhook_change()`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER webhooks_change_notify ON webhooks.webhooks`);
    await q.query(`DROP FUNCTION webhooks.notify_webhook_change()`);
  }
}
