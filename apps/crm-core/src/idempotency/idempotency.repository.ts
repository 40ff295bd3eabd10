import { Injectable } from '@nestjs/common';
import { execute, maybeOne, sql, type Db } from '../common/sql';

/** What is kept of a write's outcome: its reply, or (a secret, or too large to keep) none. */
export type KeptReply = 'reply' | 'secret' | 'too_large';

/** A key's committed row: the request it was used with and that request's outcome. */
export interface IdempotencyKeyRow {
  fingerprint: string;
  status: number;
  kept: KeptReply;
  /** The reply as sent (JSON text), when `kept` is 'reply'. */
  reply: string | null;
}

/** crm.idempotency_keys (migration 1764801400000): a write's Idempotency-Key and outcome, per account. */
@Injectable()
export class IdempotencyRepository {
  /**
   * Inserts the key's row in the caller's transaction: true when this request now holds the key.
   * While another transaction holds an uncommitted row with the same key this waits on the
   * primary key; once that transaction commits the insert does nothing (false: read the outcome
   * with {@link find}), once it rolls back the row is this request's.
   */
  async claim(db: Db, accountId: string, key: string, fingerprint: string): Promise<boolean> {
    const inserted = await execute(
      db,
      sql`INSERT INTO crm.idempotency_keys (account_id, key, fingerprint) VALUES (${accountId}, ${key}, ${fingerprint})
          ON CONFLICT (account_id, key) DO NOTHING`,
      { prepare: true },
    );
    return inserted === 1;
  }

  /** The key's committed row in the account. */
  find(db: Db, accountId: string, key: string): Promise<IdempotencyKeyRow | undefined> {
    return maybeOne<IdempotencyKeyRow>(
      db,
      sql`SELECT fingerprint, status, kept, reply FROM crm.idempotency_keys WHERE account_id = ${accountId} AND key = ${key}`,
      { prepare: true },
    );
  }

  /** Records the outcome on the row {@link claim} inserted, before the write's COMMIT. */
  async record(db: Db, accountId: string, key: string, status: number, kept: KeptReply, reply: string | null): Promise<void> {
    await execute(
      db,
      sql`UPDATE crm.idempotency_keys SET status = ${status}, kept = ${kept}, reply = ${reply}
          WHERE account_id = ${accountId} AND key = ${key}`,
      { prepare: true },
    );
  }

  /**
   * Deletes up to `batch` rows created more than `retentionSeconds` ago, oldest first along
   * idempotency_keys_created_idx: the rows deleted.
   */
  purgeBatch(db: Db, retentionSeconds: number, batch: number): Promise<number> {
    return execute(
      db,
      sql`DELETE FROM crm.idempotency_keys WHERE (account_id, key) IN (
            SELECT account_id, key FROM crm.idempotency_keys
            WHERE created_at < now() - make_interval(secs => ${retentionSeconds})
            ORDER BY created_at LIMIT ${batch})`,
    );
  }
}
