import type pg from 'pg';

/**
 * The WAL positions the replica router compares (decisions.md "Reads from a replica"), each read as
 * pg_lsn text (parsePgLsn turns it into a number).
 */

/** The primary's WAL position written so far (the router's samples, paired with their time). */
export async function primaryWalPosition(client: pg.Client): Promise<string | undefined> {
  const { rows } = await client.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn');
  return rows[0]?.lsn;
}

/** What the replica has replayed; null when it is not a standby (nothing says it has the primary's data). */
export async function replicaReplayPosition(client: pg.Client): Promise<string | null | undefined> {
  const { rows } = await client.query<{ lsn: string | null }>('SELECT pg_last_wal_replay_lsn()::text AS lsn');
  return rows[0]?.lsn;
}

/** The primary's WAL insert position now, after everything the caller committed. */
export async function primaryInsertPosition(primary: { query(text: string): Promise<unknown> }): Promise<string | undefined> {
  const rows = (await primary.query('SELECT pg_current_wal_insert_lsn()::text AS lsn')) as Array<{ lsn: string }>;
  return rows[0]?.lsn;
}

/**
 * COMMIT and the insert position in one simple query (one round trip): read after the COMMIT
 * returned, so past its commit record.
 */
export async function commitReturningInsertPosition(client: {
  query(text: string): Promise<Array<{ rows: Array<{ lsn: string }> }>>;
}): Promise<string | undefined> {
  const results = await client.query('COMMIT; SELECT pg_current_wal_insert_lsn()::text AS lsn');
  return results[1]?.rows[0]?.lsn;
}
