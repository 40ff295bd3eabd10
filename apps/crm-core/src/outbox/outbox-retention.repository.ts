import { execute, one, sql, type Db } from '../common/sql';

/** Rows looked at per step: a range of `seq` read on the primary key, never a scan of the table. */
export const RETENTION_WINDOW = 5000;
/** Where a step of the purge leaves its cursor. */
export interface PurgeStep {
  /** Rows deleted by this step. */
  deleted: number;
  /** Where the next step starts (`seq`), as a decimal string. */
  next: string;
  /** False when the step stopped behind a row it must keep for now (pending, or published too recently), or at the end. */
  advanced: boolean;
}

/**
 * One step of the retention of published outbox rows (decisions.md "Outbox retention"): from the
 * first row at or after `from`, deletes the rows of the next `window` sequence numbers that were
 * published more than `retentionSeconds` ago. The cursor moves past the window only when nothing
 * in it must be kept for later: a pending row (still to be relayed) or one published too recently
 * stops it, so rows are never deleted before they are relayed and old enough. Parked rows stay
 * (they are kept for inspection) and never stop the cursor. Every statement reads a range of the
 * primary key, so a step costs the same whatever the size of the table.
 */
export async function purgeOutboxStep(db: Db, from: string, window: number, retentionSeconds: number): Promise<PurgeStep> {
  const first = await one<{ seq: string | null }>(db, sql`SELECT min(seq)::text AS seq FROM crm.outbox WHERE seq >= ${from}::bigint`);
  if (first.seq === null) return { deleted: 0, next: from, advanced: false };
  const lo = first.seq;
  const deleted = await execute(
    db,
    sql`DELETE FROM crm.outbox
        WHERE seq >= ${lo}::bigint AND seq < ${lo}::bigint + ${window}
          AND published_at IS NOT NULL AND published_at < now() - make_interval(secs => ${retentionSeconds})`,
  );
  const kept = await one<{ kept: boolean }>(
    db,
    sql`SELECT EXISTS (SELECT 1 FROM crm.outbox WHERE seq >= ${lo}::bigint AND seq < ${lo}::bigint + ${window} AND parked_at IS NULL) AS kept`,
  );
  if (kept.kept) return { deleted, next: lo, advanced: false };
  return { deleted, next: (BigInt(lo) + BigInt(window)).toString(), advanced: true };
}
