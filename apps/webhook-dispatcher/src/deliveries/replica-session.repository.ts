import { execute, many, one, sql, type SqlSession } from '@crm/database';

/** Advisory-lock class of the dispatchers (two-key form: class, key). */
const LOCK_CLASS = 0x7768_6b73; // "whks"
/** Key of the lock whose holder takes events from the stream. */
export const INGEST_KEY = 0;
/** NOTIFY channel: deliveries became due that no replica holds. */
export const DUE_CHANNEL = 'webhooks_due';
/** NOTIFY channel of the webhooks table's trigger: payload the account whose webhooks changed. */
export const WEBHOOKS_CHANGED_CHANNEL = 'webhooks_changed';

/**
 * The statements of a replica's own PostgreSQL session (see ReplicaCoordinator): session advisory
 * locks in the dispatchers' class, LISTEN and NOTIFY. Each takes the session, never the pool: a
 * session lock and a LISTEN belong to the connection that took them.
 */

/** Waits for the lock on `key` (a replica's own key: free until the session that took it ends). */
export async function lockReplicaKey(session: SqlSession, key: number): Promise<void> {
  await execute(session, sql`SELECT pg_advisory_lock(${LOCK_CLASS}::int, ${key}::int)`);
}

/** Takes the lock on `key` if it is free; whether it was taken. */
export async function tryLockReplicaKey(session: SqlSession, key: number): Promise<boolean> {
  return (await one<{ got: boolean }>(session, sql`SELECT pg_try_advisory_lock(${LOCK_CLASS}::int, ${key}::int) AS got`)).got;
}

export async function unlockReplicaKey(session: SqlSession, key: number): Promise<void> {
  await execute(session, sql`SELECT pg_advisory_unlock(${LOCK_CLASS}::int, ${key}::int)`);
}

/** Subscribes the session to due deliveries and to changes of webhooks. */
export async function listenForDispatcherNotifications(session: SqlSession): Promise<void> {
  // Channel names are identifiers, not values: fixed text from this file.
  await many(session, sql`LISTEN ${sql.raw(DUE_CHANNEL)}`);
  await many(session, sql`LISTEN ${sql.raw(WEBHOOKS_CHANGED_CHANNEL)}`);
}

/** Tells the other replicas that deliveries wait for someone to claim them. */
export async function notifyDue(session: SqlSession): Promise<void> {
  await execute(session, sql`NOTIFY ${sql.raw(DUE_CHANNEL)}`);
}

/** Gives the claims of replica `holder` (whose session is gone) back to the schedule; how many there were. */
export function freeClaimsOf(session: SqlSession, holder: number): Promise<number> {
  return execute(session, sql`UPDATE webhooks.deliveries SET locked_by = NULL WHERE locked_by = ${holder}`);
}
