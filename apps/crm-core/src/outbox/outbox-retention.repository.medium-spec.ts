import { newId } from '@crm/common';
import type { Caller } from '@crm/contracts';
import { createTestDatabase } from '@crm/testing';
import pino from 'pino';
import { openMediumDatabase, type MediumDatabase } from '../accounts/accounts.medium-fixture';
import { OutboxRetention } from './outbox-retention';
import { purgeOutboxStep } from './outbox-retention.repository';
import { insertOutboxEvent } from './outbox.repository';

/** Retention of relayed outbox rows against the real PostgreSQL (decisions.md "Outbox retention"). */
describe('outbox retention (real PostgreSQL)', () => {
  let fx: MediumDatabase;
  let acme: Caller;
  const HOUR = 3600;

  /** Commits `n` events; returns their seqs in order. */
  async function write(n: number): Promise<string[]> {
    const ids: string[] = [];
    await fx.dataSource.transaction(async (tx) => {
      for (let i = 0; i < n; i++) {
        const event_id = newId();
        ids.push(event_id);
        await insertOutboxEvent(tx, {
          event_id,
          account_id: acme.account_id,
          type: 'contact',
          reason: 'updated',
          record_id: newId(),
          contact_status_id: null,
          data_json: JSON.stringify({ i }),
          truncated_bytes: null,
          request_id: null,
          traceparent: null,
        });
      }
    });
    const rows: Array<{ s: string }> = await fx.dataSource.query(
      'SELECT seq::text AS s FROM crm.outbox WHERE event_id = ANY($1) ORDER BY seq',
      [ids],
    );
    return rows.map((r) => r.s);
  }

  const publishedAgo = (seqs: string[], seconds: number) =>
    fx.dataSource.query(`UPDATE crm.outbox SET published_at = now() - make_interval(secs => $2) WHERE seq = ANY($1::bigint[])`, [
      seqs,
      seconds,
    ]);
  const parkedAgo = (seqs: string[], seconds: number) =>
    fx.dataSource.query(
      `UPDATE crm.outbox SET parked_at = now() - make_interval(secs => $2), last_error = 'refused' WHERE seq = ANY($1::bigint[])`,
      [seqs, seconds],
    );
  const remaining = async (seqs: string[]): Promise<string[]> =>
    (
      (await fx.dataSource.query('SELECT seq::text AS s FROM crm.outbox WHERE seq = ANY($1::bigint[]) ORDER BY seq', [seqs])) as Array<{
        s: string;
      }>
    ).map((r) => r.s);

  beforeAll(async () => {
    fx = await openMediumDatabase(await createTestDatabase('crm_outbox_retention'));
    acme = await fx.newAccount('Acme');
  });

  beforeEach(async () => {
    // Each test starts from an empty outbox, so the cursor's first row is the test's own.
    await fx.dataSource.query('DELETE FROM crm.outbox');
  });

  afterAll(async () => {
    await fx?.close();
  });

  it('deletes only rows relayed longer ago than the retention; keeps recent, pending and parked rows', async () => {
    const [oldA, oldB, recent, pending, parked] = await write(5);
    await publishedAgo([oldA, oldB], 2 * HOUR);
    await publishedAgo([recent], 60);
    await parkedAgo([parked], 2 * HOUR);

    const step = await purgeOutboxStep(fx.dataSource.manager, '0', 100, HOUR);

    expect(step.deleted).toBe(2);
    expect(await remaining([oldA, oldB, recent, pending, parked])).toEqual([recent, pending, parked]);
    // A row kept for later (recent, pending) holds the cursor at the window it is in.
    expect(step).toMatchObject({ advanced: false, next: oldA });
  });

  it('moves window by window past rows it deleted or parked rows, and stops behind a row still pending', async () => {
    const seqs = await write(8);
    const [a, b, c, d, e, f, g, h] = seqs;
    await publishedAgo([a, b, c, d, e, g, h], 2 * HOUR);
    await parkedAgo([f], 2 * HOUR);
    // seq has no gaps inside one transaction here; windows of 3: [a b c] [d e f] [g h]
    const first = await purgeOutboxStep(fx.dataSource.manager, '0', 3, HOUR);
    expect(first).toEqual({ deleted: 3, next: (BigInt(a) + 3n).toString(), advanced: true });
    const second = await purgeOutboxStep(fx.dataSource.manager, first.next, 3, HOUR);
    expect(second).toEqual({ deleted: 2, next: (BigInt(d) + 3n).toString(), advanced: true });
    const third = await purgeOutboxStep(fx.dataSource.manager, second.next, 3, HOUR);
    expect(third.deleted).toBe(2);
    expect(await remaining(seqs)).toEqual([f]);
    // Past the last row: nothing to do, the cursor stays.
    const end = await purgeOutboxStep(fx.dataSource.manager, third.next, 3, HOUR);
    expect(end).toEqual({ deleted: 0, next: third.next, advanced: false });

    // A pending row stops the cursor until it is relayed and old enough; rows after it wait too.
    const [p, q] = await write(2);
    await publishedAgo([q], 2 * HOUR);
    // A run starts again from the first row: the parked row's window is passed over, then p's holds.
    const overParked = await purgeOutboxStep(fx.dataSource.manager, '0', 3, HOUR);
    expect(overParked).toEqual({ deleted: 0, next: (BigInt(f) + 3n).toString(), advanced: true });
    const held = await purgeOutboxStep(fx.dataSource.manager, overParked.next, 3, HOUR);
    expect(held).toMatchObject({ deleted: 1, advanced: false, next: p });
    expect(await remaining([p, q])).toEqual([p]);
    await publishedAgo([p], 2 * HOUR);
    const released = await purgeOutboxStep(fx.dataSource.manager, held.next, 3, HOUR);
    expect(released).toMatchObject({ deleted: 1, advanced: true });
    expect(await remaining([p, q])).toEqual([]);
  });

  it('a run walks every window of old rows, bounded, and logs what it removed', async () => {
    const seqs = await write(50);
    await publishedAgo(seqs.slice(0, 45), 3 * HOUR);
    const lines: string[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(line) });
    const retention = new OutboxRetention({ dataSource: fx.dataSource, logger, retentionSeconds: HOUR, window: 7 });

    expect(await retention.run()).toBe(45);
    expect(await remaining(seqs)).toEqual(seqs.slice(45));
    expect(lines.join('')).toContain('"rows":45');
    // Nothing old is left: the next run deletes nothing.
    expect(await retention.run()).toBe(0);
  });
});
