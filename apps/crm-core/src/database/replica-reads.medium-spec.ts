import { ContactSubjects, parsePgLsn, READ_AFTER_NOTHING, READ_FROM_PRIMARY, type Caller, type RpcReply } from '@crm/contracts';
import { startPostgresPrimaryWithReplica, type PostgresPrimaryWithReplica } from '@crm/testing';
import { readFileSync, readdirSync } from 'node:fs';
import { runWithRequestId } from '@crm/observability';
import pino from 'pino';
import { Client } from 'pg';
import { Registry } from 'prom-client';
import { openMediumDatabase, type MediumDatabase } from '../accounts/accounts.medium-fixture';
import { execute, maybeOne, sql } from '../common/sql';
import { inRequestTransaction } from './request-transaction';
import { ReplicaReads } from './replica-reads';

/**
 * Reads from a replica on a private primary and streaming replica (decisions.md "Reads from a
 * replica"): a read request goes to the replica only when it has replayed the caller's last write
 * and lags less than the bound; anything wrong with the replica sends reads to the primary,
 * never an error. Where a read ran is read from the server itself (pg_is_in_recovery()), and
 * from the router's counter.
 */
const READ = ContactSubjects.ContactsGet;
const WRITE = ContactSubjects.ContactsPatch;
const MAX_LAG_MS = 400;

describe('reads from a replica (private primary and streaming replica)', () => {
  let pair: PostgresPrimaryWithReplica;
  let fx: MediumDatabase;
  let reads: ReplicaReads;
  let registry: Registry;
  let caller: Caller;

  beforeAll(async () => {
    pair = await startPostgresPrimaryWithReplica({ database: 'crm' });
    fx = await openMediumDatabase({ url: pair.primaryUrl, drop: async () => undefined });
    caller = await fx.newAccount('Replica');
    registry = new Registry();
    reads = new ReplicaReads({
      primary: fx.dataSource,
      primaryUrl: pair.primaryUrl,
      replicaUrl: pair.replicaUrl,
      maxLagMs: MAX_LAG_MS,
      pollMs: 20,
      timeoutMs: 500,
      poolSize: 4,
      registry,
      logger: pino({ level: 'silent' }),
    });
    reads.start();
    await pair.waitForReplay();
    await replicaUsable();
  }, 120_000);

  afterAll(async () => {
    await reads?.stop();
    await fx?.close();
    await pair?.destroy();
  });

  /** A write request as crm-core runs one: the request's transaction, committed; its reply as the gateway gets it. */
  const rename = (name: string): Promise<RpcReply> =>
    reads.around(WRITE, { caller, payload: {} }, () =>
      inRequestTransaction(fx.dataSource, async (db) => {
        await execute(db, sql`UPDATE crm.accounts SET name = ${name} WHERE id = ${caller.account_id}`);
        return { commit: true, result: { ok: true, data: { name } } as RpcReply };
      }),
    );

  /** A read request with `read_after`: the account's name and whether the server that answered is a standby. */
  const readName = async (readAfter: string | undefined): Promise<{ name: string; standby: boolean }> => {
    const reply = await reads.around(
      READ,
      { caller, payload: {}, ...(readAfter === undefined ? {} : { read_after: readAfter }) },
      async () => {
        const row = await maybeOne<{ name: string; standby: boolean }>(
          fx.dataSource.manager,
          sql`SELECT name, pg_is_in_recovery() AS standby FROM crm.accounts WHERE id = ${caller.account_id}`,
        );
        return { ok: true, data: row } as RpcReply;
      },
    );
    if (!reply.ok) throw new Error('read failed');
    return reply.data as { name: string; standby: boolean };
  };

  const countOf = async (target: string, reason?: string): Promise<number> => {
    const metric = await registry.getSingleMetric('crm_db_reads_total')!.get();
    return metric.values
      .filter((v) => v.labels.target === target && (reason === undefined || v.labels.reason === reason))
      .reduce((sum, v) => sum + v.value, 0);
  };

  /** Waits (bounded) until a read without a recent write goes to the replica again. */
  async function replicaUsable(): Promise<void> {
    for (let i = 0; i < 300; i += 1) {
      if ((await readName(READ_AFTER_NOTHING)).standby) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error('the replica never became usable for reads');
  }

  const onReplica = async (text: string): Promise<unknown[]> => {
    const client = new Client({ connectionString: pair.replicaUrl });
    await client.connect();
    try {
      return (await client.query(text)).rows;
    } finally {
      await client.end();
    }
  };

  it('reads with no recent write from the replica, counted as replica reads', async () => {
    const before = await countOf('replica');
    const row = await readName(READ_AFTER_NOTHING);
    expect(row).toEqual({ name: 'Replica', standby: true });
    expect(await countOf('replica')).toBe(before + 1);
  });

  it('answers a write with its commit position, which the replica reaches', async () => {
    const reply = await rename('Replica again');
    expect(reply.ok).toBe(true);
    const lsn = (reply as { commit_lsn?: string }).commit_lsn;
    expect(lsn).toMatch(/^[0-9A-F]+\/[0-9A-F]+$/);
    await pair.waitForReplay(lsn);
    const [{ name }] = (await onReplica(`SELECT name FROM crm.accounts WHERE id = '${caller.account_id}'`)) as Array<{ name: string }>;
    expect(name).toBe('Replica again');
  });

  it('gives a position to a write that committed on its own and to a repeat, none to an error reply', async () => {
    const first = parsePgLsn(((await rename('Positions')) as { commit_lsn?: string }).commit_lsn)!;
    // A statement outside any transaction (it commits on its own): the position is read after it.
    const autocommit = await reads.around(WRITE, { caller, payload: {} }, async () => {
      await execute(fx.dataSource.manager, sql`UPDATE crm.accounts SET name = ${'Positions 2'} WHERE id = ${caller.account_id}`);
      return { ok: true, data: {} } as RpcReply;
    });
    const second = parsePgLsn((autocommit as { commit_lsn?: string }).commit_lsn)!;
    expect(second).toBeGreaterThan(first);
    // A repeat answered from an earlier write's record commits nothing: the primary's position now.
    const repeat = await reads.around(WRITE, { caller, payload: {} }, async () => ({ ok: true, data: {}, replayed: true }) as RpcReply);
    expect(parsePgLsn((repeat as { commit_lsn?: string }).commit_lsn)! >= second).toBe(true);
    const failed = await reads.around(
      WRITE,
      { caller, payload: {} },
      async () => ({ ok: false, error: { error_name: 'x' } }) as unknown as RpcReply,
    );
    expect(failed).not.toHaveProperty('commit_lsn');
  });

  it("reads the caller's own write from the primary while the replica's replay is paused", async () => {
    await pair.pauseReplay();
    try {
      const reply = await rename('Written while paused');
      const lsn = (reply as { commit_lsn?: string }).commit_lsn!;
      // The replica has not applied it...
      const [{ name: onStandby }] = (await onReplica(`SELECT name FROM crm.accounts WHERE id = '${caller.account_id}'`)) as Array<{
        name: string;
      }>;
      expect(onStandby).not.toBe('Written while paused');
      // ...so the read after it goes to the primary and sees it.
      expect(await readName(lsn)).toEqual({ name: 'Written while paused', standby: false });
      // A read that asks for the primary (the gateway could not look the positions up) goes there too.
      expect(await readName(READ_FROM_PRIMARY)).toEqual({ name: 'Written while paused', standby: false });
      expect(await readName(undefined)).toEqual({ name: 'Written while paused', standby: false });
    } finally {
      await pair.resumeReplay();
    }
    await pair.waitForReplay();
    await replicaUsable();
  });

  it('reads from the primary once the paused replica lags past the bound, and from the replica again after it catches up', async () => {
    await pair.pauseReplay();
    try {
      await rename('Past the bound');
      // Wait (bounded) until the measured lag passes the bound: the replica has not replayed the write.
      // The gauge is set at each poll, the status reads the lag now: wait for both.
      const gaugeLag = async () => (await registry.getSingleMetric('crm_db_replica_lag_seconds')!.get()).values[0]?.value ?? 0;
      for (let i = 0; i < 200 && (reads.status().lagMs <= MAX_LAG_MS || (await gaugeLag()) <= MAX_LAG_MS / 1000); i += 1)
        await new Promise((r) => setTimeout(r, 25));
      expect(reads.status().lagMs).toBeGreaterThan(MAX_LAG_MS);
      const lagging = await countOf('primary', 'lagging');
      // No write of this caller is in question (0/0): the lag alone sends the read to the primary.
      expect(await readName(READ_AFTER_NOTHING)).toEqual({ name: 'Past the bound', standby: false });
      expect(await countOf('primary', 'lagging')).toBe(lagging + 1);
      const gauge = await registry.getSingleMetric('crm_db_replica_lag_seconds')!.get();
      expect(gauge.values[0].value).toBeGreaterThan(MAX_LAG_MS / 1000);
    } finally {
      await pair.resumeReplay();
    }
    await pair.waitForReplay();
    await replicaUsable();
    expect(await readName(READ_AFTER_NOTHING)).toEqual({ name: 'Past the bound', standby: true });
  });

  it('reads from the primary, without an error, while the replica is stopped, and from the replica once it is back', async () => {
    await pair.stopReplica();
    try {
      // Whether the router has noticed yet or not, every read succeeds on the primary.
      for (let i = 0; i < 5; i += 1) expect(await readName(READ_AFTER_NOTHING)).toEqual({ name: 'Past the bound', standby: false });
      await rename('Replica stopped');
      expect(await readName(READ_AFTER_NOTHING)).toEqual({ name: 'Replica stopped', standby: false });
      expect(await countOf('primary', 'replica_down')).toBeGreaterThan(0);
    } finally {
      await pair.startReplica();
    }
    await pair.waitForReplay();
    await replicaUsable();
    expect(await readName(READ_AFTER_NOTHING)).toEqual({ name: 'Replica stopped', standby: true });
  });

  it("reads from the primary when the replica stops answering (no error comes back), within the caller's wait", async () => {
    await replicaUsable();
    // Every process of the replica stopped (SIGSTOP): connections stay open, nothing answers.
    const postmaster = pair.pids().replica!;
    const stopped = [postmaster, ...childrenOf(postmaster)];
    for (const pid of stopped) process.kill(pid, 'SIGSTOP');
    try {
      // The caller waits 4 s (its deadline): the replica gets half of it, the primary answers.
      const row = await runWithRequestId('frozen-replica', () => readName(READ_AFTER_NOTHING), Date.now() + 4000);
      expect(row).toEqual({ name: 'Replica stopped', standby: false });
      // The router has stopped trusting it: the next read goes to the primary at once.
      expect(await readName(READ_AFTER_NOTHING)).toEqual({ name: 'Replica stopped', standby: false });
    } finally {
      for (const pid of stopped) process.kill(pid, 'SIGCONT');
    }
    await replicaUsable();
  });

  it('runs a statement that fails on the replica once more on the primary', async () => {
    const failed = await countOf('primary', 'replica_failed');
    // A write inside a read request cannot run on a standby (read-only): it runs on the primary.
    const reply = await reads.around(READ, { caller, payload: {}, read_after: READ_AFTER_NOTHING }, async () => {
      const touched = await execute(
        fx.dataSource.manager,
        sql`UPDATE crm.accounts SET name = ${'Fixed up'} WHERE id = ${caller.account_id}`,
      );
      return { ok: true, data: touched } as RpcReply;
    });
    expect(reply).toEqual({ ok: true, data: 1 });
    expect(await countOf('primary', 'replica_failed')).toBe(failed + 1);
  });

  it('leaves statements inside a transaction, and other subjects, on the primary', async () => {
    const reply = await reads.around(READ, { caller, payload: {}, read_after: READ_AFTER_NOTHING }, () =>
      fx.dataSource.transaction(async (tx) => {
        const row = await maybeOne<{ standby: boolean }>(tx, sql`SELECT pg_is_in_recovery() AS standby, ${1}::int AS n`);
        return { ok: true, data: row } as RpcReply;
      }),
    );
    expect(reply).toEqual({ ok: true, data: { standby: false, n: 1 } });
    const outside = await maybeOne<{ standby: boolean }>(fx.dataSource.manager, sql`SELECT pg_is_in_recovery() AS standby`);
    expect(outside).toEqual({ standby: false });
  });
});

/** The pids whose parent is `pid` (a postmaster's backends and helpers). */
function childrenOf(pid: number): number[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid;
      } catch {
        return false;
      }
    })
    .map(Number);
}
