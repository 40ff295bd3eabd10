import { newId } from '@crm/common';
import type { Caller } from '@crm/contracts';
import { createTestDatabase } from '@crm/testing';
import { openMediumDatabase, type MediumDatabase } from '../accounts/accounts.medium-fixture';
import { claimOutboxBatch, insertOutboxEvent, markOutboxPublished } from './outbox.repository';

/** The relay's claim of a batch against the real PostgreSQL: one relay at a time, in outbox order. */
describe('outbox repository (real PostgreSQL)', () => {
  let fx: MediumDatabase;
  let acme: Caller;

  const event = (n: number) => ({
    event_id: newId(),
    account_id: acme.account_id,
    type: 'contact' as const,
    reason: 'created',
    record_id: `r${n}`,
    contact_status_id: null,
    data: { n },
  });

  beforeAll(async () => {
    fx = await openMediumDatabase(await createTestDatabase('crm_outbox_repository'));
    acme = await fx.newAccount('Acme');
  });

  afterAll(async () => {
    await fx?.close();
  });

  it('writes an event only with its transaction, and claims committed ones in order', async () => {
    await fx.dataSource.transaction(async (tx) => {
      for (const n of [1, 2, 3]) await insertOutboxEvent(tx, event(n));
    });
    await expect(
      fx.dataSource.transaction(async (tx) => {
        await insertOutboxEvent(tx, event(99));
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    const claimed = await fx.dataSource.transaction((tx) => claimOutboxBatch(tx, 2));
    expect(claimed.map((r) => r.data)).toEqual([{ n: 1 }, { n: 2 }]);
    expect(claimed[0]).toMatchObject({ type: 'contact', reason: 'created', account_id: acme.account_id, contact_status_id: null });
  });

  it('gives a second relay nothing while one holds the relay lock, and never returns published rows', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let first: string[] = [];
    const firstRelay = fx.dataSource.transaction(async (tx) => {
      first = (await claimOutboxBatch(tx, 100)).map((r) => r.seq);
      await held;
      await markOutboxPublished(tx, first);
    });
    while (first.length === 0) await new Promise((r) => setTimeout(r, 10));
    const second = await fx.dataSource.transaction((tx) => claimOutboxBatch(tx, 100));
    expect(second).toEqual([]);
    release();
    await firstRelay;
    expect(first.length).toBeGreaterThanOrEqual(3);
    expect(await fx.dataSource.transaction((tx) => claimOutboxBatch(tx, 100))).toEqual([]);
  });
});
