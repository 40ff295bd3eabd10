import { Injectable } from '@nestjs/common';
import { execute, many, maybeOne, one, sql, type Db } from '@crm/database';

/** webhooks.webhooks as the service reads it. */
export interface WebhookRow {
  id: string;
  name: string;
  hook_url: string;
  secretkey: string;
  types: string[];
  status_id: string | null;
  active: boolean;
  created_at: Date;
  modified_at: Date;
  signing_secret: string;
}

/** The columns a create or an update writes. */
export interface WebhookWrite {
  name: string;
  hook_url: string;
  secretkey: string;
  types: string[];
  status_id: string | null;
  active: boolean;
}

const COLUMNS = sql.raw('id, name, hook_url, secretkey, types, status_id, active, created_at, modified_at, signing_secret');
/** First key of the advisory lock that serializes one account's webhook creations (the second: a hash of the account id). */
const ACCOUNT_LOCK = 0x77686b73; // "whks"

/** Every statement on an account's webhook registrations (schema "webhooks"). */
@Injectable()
export class WebhooksRepository {
  async count(db: Db, accountId: string): Promise<number> {
    const { total } = await one<{ total: number }>(
      db,
      sql`SELECT count(*)::int AS total FROM webhooks.webhooks WHERE account_id = ${accountId}`,
    );
    return total;
  }

  /** One page, oldest first. */
  page(db: Db, accountId: string, limit: number, offset: number): Promise<WebhookRow[]> {
    return many(
      db,
      sql`SELECT ${COLUMNS} FROM webhooks.webhooks WHERE account_id = ${accountId} ORDER BY created_at, id LIMIT ${limit} OFFSET ${offset}`,
    );
  }

  /** The account's webhook `id` (lower case), or undefined: another account's is never found. */
  find(db: Db, accountId: string, id: string): Promise<WebhookRow | undefined> {
    return maybeOne(db, sql`SELECT ${COLUMNS} FROM webhooks.webhooks WHERE id = ${id} AND account_id = ${accountId}`);
  }

  /** Serializes the account's creations until the transaction ends (the cap is counted under it). */
  async lockAccount(db: Db, accountId: string): Promise<void> {
    await execute(db, sql`SELECT pg_advisory_xact_lock(${ACCOUNT_LOCK}::int, hashtext(${accountId}))`);
  }

  async insert(db: Db, row: WebhookWrite & { id: string; account_id: string; signing_secret: string }): Promise<void> {
    await execute(
      db,
      sql`INSERT INTO webhooks.webhooks (id, account_id, name, hook_url, secretkey, types, status_id, active, signing_secret)
          VALUES (${row.id}, ${row.account_id}, ${row.name}, ${row.hook_url}, ${row.secretkey}, ${row.types}, ${row.status_id}, ${row.active}, ${row.signing_secret})`,
    );
  }

  async update(db: Db, id: string, row: WebhookWrite): Promise<void> {
    await execute(
      db,
      sql`UPDATE webhooks.webhooks
          SET name = ${row.name}, hook_url = ${row.hook_url}, secretkey = ${row.secretkey}, types = ${row.types}, status_id = ${row.status_id}, active = ${row.active}, modified_at = now()
          WHERE id = ${id}`,
    );
  }

  /**
   * Fails the webhook's pending deliveries that no replica is attempting right now (a webhook
   * switched off: a redelivery can send them once it is active again).
   */
  async failPendingDeliveries(db: Db, webhookId: string, reason: string): Promise<void> {
    await execute(
      db,
      sql`UPDATE webhooks.deliveries SET status = 'failed', next_attempt_at = NULL, completed_at = now(), last_error = ${reason}
          WHERE webhook_id = ${webhookId} AND status = 'pending' AND locked_by IS NULL`,
    );
  }

  /** Deletes the webhook; its deliveries and their attempts go with it (ON DELETE CASCADE). */
  async delete(db: Db, id: string): Promise<void> {
    await execute(db, sql`DELETE FROM webhooks.webhooks WHERE id = ${id}`);
  }

  /** `secret` signs from now on; the current one keeps signing for `overlap` (an interval, e.g. '24 hours'). */
  async rotateSecret(db: Db, id: string, secret: string, overlap: string): Promise<void> {
    await execute(
      db,
      sql`UPDATE webhooks.webhooks
          SET previous_signing_secret = signing_secret, previous_secret_expires_at = now() + ${overlap}::interval, signing_secret = ${secret}, modified_at = now()
          WHERE id = ${id}`,
    );
  }
}
