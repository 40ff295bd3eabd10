import { newId } from '@crm/common';
import { createTestDatabase } from '@crm/testing';
import { openWebhooksDatabase, type WebhooksMediumDatabase } from '../database/webhooks.medium-fixture';
import { DeliveriesRepository, type AttemptRecord, type IngestedEvent } from './deliveries.repository';

const KEY = 101;
const OTHER_KEY = 202;

/** The delivery pipeline's and the delivery log's statements against the real PostgreSQL. */
describe('deliveries repository (real PostgreSQL)', () => {
  let fx: WebhooksMediumDatabase;
  let repo: DeliveriesRepository;
  let seq = 0;

  beforeAll(async () => {
    fx = await openWebhooksDatabase(await createTestDatabase('webhooks_deliveries_repository'));
    repo = new DeliveriesRepository(fx.dataSource);
  });

  afterEach(async () => {
    await fx.dataSource.query('TRUNCATE webhooks.webhooks, webhooks.events CASCADE');
  });

  afterAll(async () => {
    await fx?.close();
  });

  const event = (over: Partial<IngestedEvent> = {}): IngestedEvent => ({
    event_id: newId(),
    account_id: newId(),
    type: 'contact',
    reason: 'updated',
    record_id: newId(),
    timestamp: 1_700_000_000,
    published_at_ms: 1_700_000_000_123,
    stream_seq: (seq += 1),
    data_json: '{"name":"Ada"}',
    request_id: 'req-1',
    traceparent: null,
    ...over,
  });

  /** One event of `record` for each webhook; returns the delivery ids and what was claimed. */
  async function ingest(webhookIds: string[], options: { record?: string; claim?: boolean } = {}) {
    const e = event({ record_id: options.record ?? newId() });
    const deliveries = webhookIds.map((webhook_id) => ({
      id: newId(),
      event_id: e.event_id,
      webhook_id,
      record_id: e.record_id,
      event_seq: e.stream_seq,
      claim: options.claim ?? false,
    }));
    const inserted = await repo.ingest([e], deliveries, KEY);
    return { event: e, ids: deliveries.map((d) => d.id), inserted };
  }

  const outcome = (delivery_id: string, over: Partial<AttemptRecord> = {}): AttemptRecord => ({
    delivery_id,
    claim_key: KEY,
    status: 'failed',
    attempted_at: new Date('2030-01-01T00:00:00Z'),
    duration_ms: 12,
    response_code: 500,
    error: null,
    delay_ms: null,
    ...over,
  });

  describe('ingest', () => {
    it('stores the event and its deliveries once: the same event again adds nothing', async () => {
      const hook = await fx.newWebhook(newId());
      const first = await ingest([hook]);
      expect(first.inserted).toEqual([{ id: first.ids[0], claimed: false }]);
      const again = await repo.ingest(
        [first.event],
        [{ id: newId(), event_id: first.event.event_id, webhook_id: hook, record_id: first.event.record_id, event_seq: 1, claim: true }],
        KEY,
      );
      expect(again).toEqual([]);
      const [stored] = await fx.dataSource.query(
        'SELECT data, request_id, occurred_at, published_at FROM webhooks.events WHERE event_id = $1',
        [first.event.event_id],
      );
      expect(stored).toEqual({
        data: { name: 'Ada' },
        request_id: 'req-1',
        occurred_at: '1700000000',
        published_at: new Date(1_700_000_000_123),
      });
    });

    it("claims a record's delivery only while no older first attempt of that record waits", async () => {
      const hook = await fx.newWebhook(newId());
      const record = newId();
      const older = await ingest([hook], { record });
      const newer = await ingest([hook], { record, claim: true });
      expect(newer.inserted).toEqual([{ id: newer.ids[0], claimed: false }]);
      const elsewhere = await ingest([hook], { claim: true });
      expect(elsewhere.inserted).toEqual([{ id: elsewhere.ids[0], claimed: true }]);
      expect(older.inserted[0].claimed).toBe(false);
    });

    it('skips deliveries to a webhook that is gone', async () => {
      const hook = await fx.newWebhook(newId());
      const { inserted, ids } = await ingest([hook, newId()]);
      expect(inserted).toEqual([{ id: ids[0], claimed: false }]);
    });
  });

  describe('claims', () => {
    it('claims due deliveries of active webhooks, at most per webhook, in stream order, with what sending needs', async () => {
      const account = newId();
      const busy = await fx.newWebhook(account, { secretkey: 's' });
      const off = await fx.newWebhook(account, { active: false });
      const full = await fx.newWebhook(account);
      const a = await ingest([busy, off, full]);
      const b = await ingest([busy]);
      await ingest([busy]);
      const claimed = await repo.claimDue(KEY, 100, 2, [full]);
      expect(claimed.map((c) => c.id)).toEqual([a.ids[0], b.ids[0]]);
      const [hook] = await fx.dataSource.query('SELECT hook_url, signing_secret FROM webhooks.webhooks WHERE id = $1', [busy]);
      expect(claimed[0]).toEqual({
        id: a.ids[0],
        webhook_id: busy,
        event_id: a.event.event_id,
        record_id: a.event.record_id,
        event_seq: a.event.stream_seq,
        tries: 0,
        attempt_count: 0,
        type: 'contact',
        reason: 'updated',
        timestamp: 1_700_000_000,
        published_at_ms: 1_700_000_000_123,
        data_json: '{"name":"Ada"}',
        hook_url: hook.hook_url,
        secretkey: 's',
        secrets: [hook.signing_secret],
        request_id: 'req-1',
        traceparent: null,
        claim_key: KEY,
      });
      // Claimed rows are nobody else's: another replica gets the rest (the third of `busy`, and `full` once not skipped).
      expect((await repo.claimDue(OTHER_KEY, 100, 5, [])).map((c) => c.webhook_id).sort()).toEqual([busy, full].sort());
    });

    it("does not claim a record's first attempt while an older one of the same record waits", async () => {
      const hook = await fx.newWebhook(newId());
      const record = newId();
      const older = await ingest([hook], { record });
      await ingest([hook], { record });
      expect((await repo.claimDue(KEY, 100, 10, [])).map((c) => c.id)).toEqual([older.ids[0]]);
      expect(await repo.claimDue(KEY, 100, 10, [])).toEqual([]);
    });

    it('gives claims back, lists their holders and frees only its own', async () => {
      const hook = await fx.newWebhook(newId());
      const { ids } = await ingest([hook], { claim: true });
      expect(await repo.claimHolders(OTHER_KEY)).toEqual([KEY]);
      expect(await repo.claimHolders(KEY)).toEqual([]);
      await repo.release(OTHER_KEY, ids);
      expect(await repo.claimHolders(OTHER_KEY)).toEqual([KEY]);
      await repo.release(KEY, ids);
      expect(await repo.claimHolders(OTHER_KEY)).toEqual([]);
      expect((await repo.claimDue(KEY, 10, 10, [])).map((c) => c.id)).toEqual(ids);
    });

    it('counts the backlog not held by a replica: due now and scheduled later', async () => {
      const hook = await fx.newWebhook(newId());
      const later = await ingest([hook], { claim: true });
      await repo.recordAttempts([outcome(later.ids[0], { status: 'pending', delay_ms: 3_600_000 })]);
      await ingest([hook]);
      await ingest([hook]);
      await ingest([hook], { claim: true });
      expect(await repo.backlog()).toEqual({ due: 2, scheduled: 1 });
    });
  });

  describe('attempts', () => {
    it('keeps the last attempt on the delivery and moves the one before to the attempts table', async () => {
      const hook = await fx.newWebhook(newId());
      const { ids } = await ingest([hook], { claim: true });
      const [id] = ids;
      await repo.recordAttempts([outcome(id, { status: 'pending', delay_ms: 0, error: 'x'.repeat(400) })]);
      const [retry] = await repo.claimDue(KEY, 10, 10, []);
      expect(retry).toMatchObject({ id, tries: 1, attempt_count: 1 });
      await repo.recordAttempts([outcome(id, { status: 'delivered', response_code: 204, attempted_at: new Date('2030-01-02T00:00:00Z') })]);
      const row = (await repo.findDelivery(hook, id))!;
      expect(row).toMatchObject({
        status: 'delivered',
        last_response_code: 204,
        last_attempted_at: new Date('2030-01-02T00:00:00Z'),
        completed_at: expect.any(Date),
        locked_by: null,
      });
      expect(await repo.attemptsOf([id])).toEqual([
        { delivery_id: id, attempted_at: new Date('2030-01-01T00:00:00Z'), duration_ms: 12, response_code: 500, error: 'x'.repeat(300) },
      ]);
    });

    it('writes nothing for a claim that is no longer ours', async () => {
      const hook = await fx.newWebhook(newId());
      const { ids } = await ingest([hook], { claim: true });
      await repo.recordAttempts([outcome(ids[0], { claim_key: OTHER_KEY, status: 'delivered', response_code: 200 })]);
      expect(await repo.findDelivery(hook, ids[0])).toMatchObject({ status: 'pending', last_attempted_at: null, locked_by: KEY });
    });

    it('schedules a retry after its delay: not due before', async () => {
      const hook = await fx.newWebhook(newId());
      const { ids } = await ingest([hook], { claim: true });
      await repo.recordAttempts([outcome(ids[0], { status: 'pending', delay_ms: 60_000 })]);
      expect(await repo.claimDue(KEY, 10, 10, [])).toEqual([]);
      const [{ seconds }] = await fx.dataSource.query(
        'SELECT round(extract(epoch FROM next_attempt_at - now()))::int AS seconds FROM webhooks.deliveries WHERE id = $1',
        [ids[0]],
      );
      expect(seconds).toBe(60);
    });
  });

  describe('webhooks switched off', () => {
    it('disables a webhook and fails what waits for it, not what is being attempted', async () => {
      const hook = await fx.newWebhook(newId());
      const waiting = await ingest([hook]);
      const attempted = await ingest([hook], { claim: true });
      await repo.disableWebhook(hook, 'webhook disabled: the receiver answered 410 Gone');
      expect(
        await repo.activeWebhooksOf([
          (await fx.dataSource.query('SELECT account_id FROM webhooks.webhooks WHERE id = $1', [hook]))[0].account_id,
        ]),
      ).toEqual([]);
      expect(await repo.findDelivery(hook, waiting.ids[0])).toMatchObject({
        status: 'failed',
        last_error: 'webhook disabled: the receiver answered 410 Gone',
        next_attempt_at: null,
      });
      expect(await repo.findDelivery(hook, attempted.ids[0])).toMatchObject({ status: 'pending', locked_by: KEY });
    });

    it('moves webhooks filtering on a deleted status to the lead status, in the account only', async () => {
      const account = newId();
      const gone = 'ab'.repeat(12);
      const lead = 'cd'.repeat(12);
      const filtered = await fx.newWebhook(account, { status_id: gone });
      const elsewhere = await fx.newWebhook(newId(), { status_id: gone });
      await repo.fallBackStatus(account, gone.toUpperCase(), lead.toUpperCase());
      const statuses = await fx.dataSource.query('SELECT id, status_id FROM webhooks.webhooks WHERE id = ANY($1) ORDER BY id', [
        [filtered, elsewhere],
      ]);
      expect(Object.fromEntries(statuses.map((r: { id: string; status_id: string }) => [r.id, r.status_id]))).toEqual({
        [filtered]: lead,
        [elsewhere]: gone,
      });
    });
  });

  describe('the delivery log', () => {
    it('finds a webhook of the account only, and its deliveries newest first, by status', async () => {
      const account = newId();
      const hook = await fx.newWebhook(account, { active: false });
      expect(await repo.webhookOfAccount(account, hook)).toEqual({ id: hook, active: false });
      expect(await repo.webhookOfAccount(newId(), hook)).toBeUndefined();
      const first = await ingest([hook], { claim: true });
      await repo.recordAttempts([outcome(first.ids[0])]);
      const second = await ingest([hook]);
      const third = await ingest([hook]);
      expect(await repo.countDeliveries(hook)).toBe(3);
      expect(await repo.countDeliveries(hook, 'failed')).toBe(1);
      expect(await repo.countDeliveries(hook, 'delivered')).toBe(0);
      expect((await repo.listDeliveries(hook, undefined, 10, 0)).map((d) => d.id)).toEqual([third.ids[0], second.ids[0], first.ids[0]]);
      expect((await repo.listDeliveries(hook, 'pending', 1, 1)).map((d) => d.id)).toEqual([second.ids[0]]);
      expect(await repo.listDeliveries(hook, 'failed', 10, 0)).toEqual([
        expect.objectContaining({ id: first.ids[0], type: 'contact', reason: 'updated', status: 'failed', last_response_code: 500 }),
      ]);
    });

    it('redelivers a finished delivery with a fresh round of tries, not one being attempted', async () => {
      const hook = await fx.newWebhook(newId());
      const done = await ingest([hook], { claim: true });
      await repo.recordAttempts([outcome(done.ids[0])]);
      expect(await repo.redeliver(done.ids[0])).toBe(true);
      expect(await repo.findDelivery(hook, done.ids[0])).toMatchObject({ status: 'pending', completed_at: null });
      const [again] = await repo.claimDue(KEY, 10, 10, []);
      expect(again).toMatchObject({ id: done.ids[0], tries: 0, attempt_count: 1 });
      expect(await repo.redeliver(done.ids[0])).toBe(false);
    });
  });

  it('purges finished deliveries past the retention, then events nothing refers to', async () => {
    const hook = await fx.newWebhook(newId());
    const finished = await ingest([hook], { claim: true });
    await repo.recordAttempts([outcome(finished.ids[0])]);
    const waiting = await ingest([hook]);
    expect(await repo.purge(1)).toBe(0);
    expect(await repo.purge(0)).toBe(1);
    expect(await repo.findDelivery(hook, finished.ids[0])).toBeUndefined();
    expect(await repo.findDelivery(hook, waiting.ids[0])).toBeDefined();
    const events = await fx.dataSource.query('SELECT event_id FROM webhooks.events');
    expect(events).toEqual([{ event_id: waiting.event.event_id }]);
  });
});
