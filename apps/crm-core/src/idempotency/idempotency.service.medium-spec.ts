import { API_ROUTES, ApiError, ErrorName, Subjects, type Caller, type RpcReply, type RpcRequest } from '@crm/contracts';
import { createTestDatabase } from '@crm/testing';
import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import { openMediumDatabase, type MediumDatabase } from '../accounts/accounts.medium-fixture';
import { IdempotencyRepository } from './idempotency.repository';
import { IdempotencyRetention } from './idempotency-retention';
import { IdempotencyService } from './idempotency.service';

const route = API_ROUTES.find((r) => r.subject === Subjects.ContactsCreate)!;
const token = (text: string) => createHash('sha256').update(text).digest('base64url');

/**
 * The write boundary against the real PostgreSQL (decisions.md "Idempotency recorded with the
 * write"): one transaction per write, the key's row first and its outcome last, a repeat answered
 * from the committed row, a concurrent repeat waiting on it, and nothing committed behind an error.
 * The writes here insert into a probe table through the services' own pattern (`dataSource.transaction`).
 */
describe('IdempotencyService (real PostgreSQL)', () => {
  let fx: MediumDatabase;
  let service: IdempotencyService;
  let acme: Caller;
  let other: Caller;

  beforeAll(async () => {
    fx = await openMediumDatabase(await createTestDatabase('crm_idempotency'));
    await fx.dataSource.query('CREATE TABLE crm.idempotency_probe (account_id varchar(24) NOT NULL, label text NOT NULL)');
    service = new IdempotencyService(fx.dataSource, new IdempotencyRepository());
    acme = await fx.newAccount('Acme');
    other = await fx.newAccount('Other');
  });

  afterAll(async () => {
    await fx?.close();
  });

  const request = (caller: Caller, key?: string, body = 'same'): RpcRequest =>
    ({ caller, payload: {}, ...(key ? { idempotency: { key: token(key), fingerprint: token(body) } } : {}) }) as RpcRequest;

  /** A handler that inserts `label` in a service transaction and reads it back outside it (as services do). */
  const inserting =
    (caller: Caller, label: string, after: () => Promise<void> = async () => undefined) =>
    async (): Promise<RpcReply> => {
      await fx.dataSource.transaction(async (tx) => {
        await tx.query('INSERT INTO crm.idempotency_probe (account_id, label) VALUES ($1, $2)', [caller.account_id, label]);
      });
      await after();
      const rows: Array<{ n: number }> = await fx.dataSource.query(
        'SELECT count(*)::int AS n FROM crm.idempotency_probe WHERE account_id = $1 AND label = $2',
        [caller.account_id, label],
      );
      return { ok: true, data: { label, seen: rows[0].n }, http_status: 201 };
    };

  const probes = async (label: string): Promise<number> =>
    (await fx.dataSource.query('SELECT count(*)::int AS n FROM crm.idempotency_probe WHERE label = $1', [label]))[0].n;
  const keyRows = async (caller: Caller, key: string): Promise<number> =>
    (
      await fx.dataSource.query('SELECT count(*)::int AS n FROM crm.idempotency_keys WHERE account_id = $1 AND key = $2', [
        caller.account_id,
        token(key),
      ])
    )[0].n;

  it('commits the write with its key; a repeat gets the recorded reply and writes nothing', async () => {
    const first = await service.write(route, request(acme, 'k1'), inserting(acme, 'one'));
    // The read after the service's own transaction saw its insert: one connection, one transaction.
    expect(first).toEqual({ ok: true, data: { label: 'one', seen: 1 }, http_status: 201 });
    expect(await keyRows(acme, 'k1')).toBe(1);

    const handler = jest.fn(inserting(acme, 'one'));
    const repeat = await service.write(route, request(acme, 'k1'), handler);
    expect(handler).not.toHaveBeenCalled();
    expect(repeat).toEqual({ ok: true, data: { label: 'one', seen: 1 }, http_status: 201, replayed: true });
    expect(await probes('one')).toBe(1);
  });

  it('answers 409 for the same key with another request, and keeps keys per account', async () => {
    await service.write(route, request(acme, 'k2', 'first'), inserting(acme, 'two'));
    await expect(service.write(route, request(acme, 'k2', 'second'), inserting(acme, 'two-b'))).rejects.toMatchObject({
      errorName: ErrorName.Conflict,
      message: expect.stringMatching(/different request/),
    });
    expect(await probes('two-b')).toBe(0);
    // The same scoped key in another account is another key.
    const theirs = await service.write(route, request(other, 'k2', 'second'), inserting(other, 'two-other'));
    expect(theirs).toMatchObject({ ok: true, data: { label: 'two-other' } });
    expect(theirs).not.toHaveProperty('replayed');
  });

  it('rolls back everything, key included, when the handler throws or answers an error; the retry runs', async () => {
    const failing = inserting(acme, 'three', async () => {
      throw new ApiError(ErrorName.ServiceUnavailable, 'gone');
    });
    await expect(service.write(route, request(acme, 'k3'), failing)).rejects.toMatchObject({ errorName: ErrorName.ServiceUnavailable });
    expect(await probes('three')).toBe(0);
    expect(await keyRows(acme, 'k3')).toBe(0);

    const errorReply = async (): Promise<RpcReply> => {
      await inserting(acme, 'three')();
      return { ok: false, error: ApiError.invalid({ x: 'bad' }).toData() };
    };
    expect(await service.write(route, request(acme, 'k3'), errorReply)).toMatchObject({ ok: false });
    expect(await probes('three')).toBe(0);
    expect(await keyRows(acme, 'k3')).toBe(0);

    expect(await service.write(route, request(acme, 'k3'), inserting(acme, 'three'))).toMatchObject({ ok: true });
    expect(await probes('three')).toBe(1);
  });

  it('refuses a reply over the reply limit before COMMIT: 400 reply, nothing written, with or without a key', async () => {
    const limits = { replyLimit: 200, keptLimit: 100 };
    const big = async (): Promise<RpcReply> => {
      await inserting(acme, 'four')();
      return { ok: true, data: { text: 'x'.repeat(500) } };
    };
    for (const req of [request(acme, 'k4'), request(acme)]) {
      const reply = await service.write(route, req, big, limits);
      expect(reply).toMatchObject({
        ok: false,
        error: { error_name: ErrorName.InvalidRequestData, errors: { reply: expect.any(String) } },
      });
      expect(JSON.stringify(reply)).toMatch(/not applied/);
    }
    expect(await probes('four')).toBe(0);
    expect(await keyRows(acme, 'k4')).toBe(0);

    // Under the limit but over what is kept: committed, and its repeat is 409 (read the record instead).
    const medium = async (): Promise<RpcReply> => {
      await inserting(acme, 'four-b')();
      return { ok: true, data: { text: 'x'.repeat(120) } };
    };
    expect(await service.write(route, request(acme, 'k4b'), medium, limits)).toMatchObject({ ok: true });
    await expect(service.write(route, request(acme, 'k4b'), medium, limits)).rejects.toMatchObject({
      errorName: ErrorName.Conflict,
      message: expect.stringMatching(/too large to keep/),
    });
    expect(await probes('four-b')).toBe(1);
  });

  it('keeps no reply that carries a secret: its repeat is 409', async () => {
    const secretRoute = { ...route, replyCarriesSecret: true };
    expect(await service.write(secretRoute, request(acme, 'k5'), inserting(acme, 'five'))).toMatchObject({ ok: true });
    const stored = await fx.dataSource.query('SELECT kept, reply FROM crm.idempotency_keys WHERE key = $1', [token('k5')]);
    expect(stored).toEqual([{ kept: 'secret', reply: null }]);
    await expect(service.write(secretRoute, request(acme, 'k5'), inserting(acme, 'five'))).rejects.toMatchObject({
      message: expect.stringMatching(/secret/),
    });
    expect(await probes('five')).toBe(1);
  });

  it('a repeat running at the same moment waits on the key and answers the first outcome', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let firstStarted!: () => void;
    const started = new Promise<void>((resolve) => (firstStarted = resolve));
    const first = service.write(
      route,
      request(acme, 'k6'),
      inserting(acme, 'six', async () => {
        firstStarted();
        await held;
      }),
    );
    await started;
    const second = service.write(route, request(acme, 'k6'), inserting(acme, 'six'));
    // The second waits on the first's uncommitted key row (a lock wait, not a poll).
    await waitForLockWait(fx);
    release();
    const [a, b] = await Promise.all([first, second]);
    expect(a).toMatchObject({ ok: true, data: { label: 'six' } });
    expect(b).toEqual({ ...a, replayed: true });
    expect(await probes('six')).toBe(1);
  });

  it('a repeat waiting on a first that rolls back takes the key over and writes once', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let firstStarted!: () => void;
    const started = new Promise<void>((resolve) => (firstStarted = resolve));
    const first = service.write(
      route,
      request(acme, 'k7'),
      inserting(acme, 'seven', async () => {
        firstStarted();
        await held;
        throw new ApiError(ErrorName.InternalServerError);
      }),
    );
    await started;
    const second = service.write(route, request(acme, 'k7'), inserting(acme, 'seven'));
    await waitForLockWait(fx);
    release();
    await expect(first).rejects.toBeInstanceOf(ApiError);
    expect(await second).toMatchObject({ ok: true, data: { label: 'seven', seen: 1 } });
    expect(await second).not.toHaveProperty('replayed');
    expect(await probes('seven')).toBe(1);
  });

  it('purges keys past their retention in bounded batches and keeps the recent ones', async () => {
    await fx.dataSource.query(
      `INSERT INTO crm.idempotency_keys (account_id, key, fingerprint, status, kept, reply, created_at)
       SELECT $1, 'old-' || i, 'f', 201, 'reply', '{}', now() - interval '25 hours' FROM generate_series(1, 25) i`,
      [acme.account_id],
    );
    const before: number = (await fx.dataSource.query('SELECT count(*)::int AS n FROM crm.idempotency_keys'))[0].n;
    const logger = { info: jest.fn(), warn: jest.fn() } as unknown as Logger;
    const retention = new IdempotencyRetention(fx.dataSource, new IdempotencyRepository(), logger);
    expect(await retention.run(24 * 3600, 10)).toBe(25);
    const after: Array<{ key: string }> = await fx.dataSource.query('SELECT key FROM crm.idempotency_keys');
    expect(after).toHaveLength(before - 25);
    expect(after.some((r) => r.key.startsWith('old-'))).toBe(false);
    expect(await keyRows(acme, 'k1')).toBe(1);
  });

  it('leaves reads and other subjects alone: only write routes run in the boundary', () => {
    expect(service.isWrite(Subjects.ContactsCreate)).toBe(true);
    expect(service.isWrite(Subjects.ContactsList)).toBe(false);
    expect(service.isWrite(Subjects.WebhooksCreate)).toBe(false);
  });
});

/** Until some session of the database waits for a lock. */
async function waitForLockWait(fx: MediumDatabase): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const rows: Array<{ n: number }> = await fx.dataSource.query(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
    );
    if (rows[0].n > 0) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('no session waited for a lock');
}
