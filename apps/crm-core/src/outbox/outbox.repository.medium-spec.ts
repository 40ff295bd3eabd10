import { newId } from '@crm/common';
import type { Caller } from '@crm/contracts';
import { createTestDatabase } from '@crm/testing';
import { openMediumDatabase, type MediumDatabase } from '../accounts/accounts.medium-fixture';
import {
  claimOutboxBatch,
  insertOutboxEvent,
  markOutboxPublished,
  outboxBacklog,
  parkOutboxRows,
  retryOutboxRows,
  type OutboxRow,
} from './outbox.repository';

/** The relay's claim of a batch against the real PostgreSQL: order per record, parked and waiting rows. */
describe('outbox repository (real PostgreSQL)', () => {
  let fx: MediumDatabase;
  let acme: Caller;

  const event = (record: string, n: number) => ({
    event_id: newId(),
    account_id: acme.account_id,
    type: 'contact' as const,
    reason: 'updated',
    record_id: record,
    contact_status_id: null,
    data_json: JSON.stringify({ n }),
    truncated_bytes: null,
    request_id: null,
    traceparent: null,
  });

  /** Commits events of (record, n) in this order; returns their seqs by `${record}${n}`. */
  async function write(...events: Array<[string, number]>): Promise<Record<string, string>> {
    await fx.dataSource.transaction(async (tx) => {
      for (const [record, n] of events) await insertOutboxEvent(tx, event(record, n));
    });
    const rows: Array<{ seq: string; record_id: string; n: number }> = await fx.dataSource.query(
      `SELECT seq, record_id, (data->>'n')::int AS n FROM crm.outbox WHERE account_id = $1`,
      [acme.account_id],
    );
    return Object.fromEntries(rows.map((r) => [`${r.record_id}${r.n}`, r.seq]));
  }

  const names = (rows: OutboxRow[]) => rows.map((r) => `${r.record_id}${(r.data as { n: number }).n}`);

  /** Marks every pending row of the account published (a clean slate for the next test). */
  async function publishAll(): Promise<void> {
    await fx.dataSource.query(
      'UPDATE crm.outbox SET published_at = now() WHERE account_id = $1 AND published_at IS NULL AND parked_at IS NULL',
      [acme.account_id],
    );
  }

  beforeAll(async () => {
    fx = await openMediumDatabase(await createTestDatabase('crm_outbox_repository'));
    acme = await fx.newAccount('Acme');
  });

  afterEach(async () => {
    await publishAll();
  });

  afterAll(async () => {
    await fx?.close();
  });

  it('writes an event only with its transaction, and claims committed ones in order', async () => {
    await write(['x', 1], ['y', 1], ['x', 2]);
    await expect(
      fx.dataSource.transaction(async (tx) => {
        await insertOutboxEvent(tx, event('x', 99));
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    const claimed = await fx.dataSource.transaction((tx) => claimOutboxBatch(tx, 100));
    expect(names(claimed)).toEqual(['x1', 'y1', 'x2']);
    expect(claimed[0]).toMatchObject({
      type: 'contact',
      reason: 'updated',
      account_id: acme.account_id,
      contact_status_id: null,
      attempts: 0,
    });
  });

  it('lets a second relay take other records while the first holds a record, never a later row of that record', async () => {
    const seq = await write(['x', 1], ['y', 1], ['x', 2], ['z', 1]);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let first: OutboxRow[] = [];
    const firstRelay = fx.dataSource.transaction(async (tx) => {
      first = await claimOutboxBatch(tx, 1);
      await held;
      await markOutboxPublished(
        tx,
        first.map((r) => r.seq),
      );
    });
    while (first.length === 0) await new Promise((r) => setTimeout(r, 10));
    expect(names(first)).toEqual(['x1']);
    // x2 must wait for x1, which the first relay holds: the second relay takes y1 and z1 only.
    const second = await fx.dataSource.transaction(async (tx) => {
      const rows = await claimOutboxBatch(tx, 100);
      await markOutboxPublished(
        tx,
        rows.map((r) => r.seq),
      );
      return rows;
    });
    expect(names(second)).toEqual(['y1', 'z1']);
    release();
    await firstRelay;
    const third = await fx.dataSource.transaction((tx) => claimOutboxBatch(tx, 100));
    expect(third.map((r) => r.seq)).toEqual([seq.x2]);
  });

  it('keeps the later rows of a record waiting for a retry out of the claim, and lets other records through', async () => {
    const seq = await write(['x', 1], ['x', 2], ['x', 3], ['y', 1]);
    await fx.dataSource.transaction((tx) => retryOutboxRows(tx, [{ seq: seq.x1, error: 'TimeoutError: timeout', delayMs: 60_000 }]));
    // With a batch of 2, x2 and x3 would fill it and publish nothing: they are not claimed at all.
    const claimed = await fx.dataSource.transaction((tx) => claimOutboxBatch(tx, 2));
    expect(names(claimed)).toEqual(['y1']);
    const [row] = await fx.dataSource.query('SELECT attempts, last_error, retry_at > now() AS waiting FROM crm.outbox WHERE seq = $1', [
      seq.x1,
    ]);
    expect(row).toEqual({ attempts: 1, last_error: 'TimeoutError: timeout', waiting: true });
    // Its time comes: x1 first, then the rest in order.
    await fx.dataSource.query('UPDATE crm.outbox SET retry_at = now() WHERE seq = $1', [seq.x1]);
    expect(names(await fx.dataSource.transaction((tx) => claimOutboxBatch(tx, 100)))).toEqual(['x1', 'x2', 'x3', 'y1']);
  });

  it('never claims a parked row again, and a parked row holds back nothing; the backlog counts both', async () => {
    const seq = await write(['x', 1], ['x', 2], ['y', 1]);
    await fx.dataSource.transaction((tx) =>
      parkOutboxRows(tx, [{ seq: seq.x1, error: "InvalidArgumentError: 'payload' max_payload size exceeded" }]),
    );
    expect(await outboxBacklog(fx.dataSource.manager)).toMatchObject({ pending: 2, parked: 1 });
    expect(names(await fx.dataSource.transaction((tx) => claimOutboxBatch(tx, 100)))).toEqual(['x2', 'y1']);
    const [parked] = await fx.dataSource.query(
      'SELECT parked_at IS NOT NULL AS parked, published_at, attempts, last_error FROM crm.outbox WHERE seq = $1',
      [seq.x1],
    );
    expect(parked).toEqual({ parked: true, published_at: null, attempts: 1, last_error: expect.stringContaining('max_payload') });
  });

  it("keeps the request id and traceparent written with an event for the relay, and reports the oldest waiting row's age", async () => {
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    await fx.dataSource.transaction((tx) => insertOutboxEvent(tx, { ...event('t', 1), request_id: 'req-trace-1', traceparent }));
    await fx.dataSource.query(
      `UPDATE crm.outbox SET occurred_at = now() - interval '90 seconds' WHERE account_id = $1 AND record_id = 't'`,
      [acme.account_id],
    );
    const claimed = await fx.dataSource.transaction((tx) => claimOutboxBatch(tx, 100));
    expect(claimed.find((r) => r.record_id === 't')).toMatchObject({ request_id: 'req-trace-1', traceparent });
    expect((await outboxBacklog(fx.dataSource.manager)).oldest_pending_seconds).toBeGreaterThanOrEqual(90);
    await fx.dataSource.query('UPDATE crm.outbox SET published_at = now() WHERE published_at IS NULL');
    expect(await outboxBacklog(fx.dataSource.manager)).toMatchObject({ pending: 0, oldest_pending_seconds: 0 });
  });
});
