import {
  api,
  createAccount,
  startPrivateNats,
  startServices,
  type CreatedAccount,
  type PrivateServer,
  type ServicesHandle,
} from '@crm/testing';
import pg from 'pg';

interface ContactEnvelope {
  data: { contact: { id: string; last_name: string } };
}

/**
 * A write whose reply never reaches the client, by real faults (decisions.md "Idempotency recorded
 * with the write"): the test holds a lock on crm.contacts with its own connection, so crm-core's
 * insert waits; meanwhile NATS goes down (or the gateway is killed); the lock is released, crm-core
 * commits, and its reply is lost. The retry with the same Idempotency-Key answers the first record
 * and creates nothing. The gateway waits 4 s for a reply (RPC_TIMEOUT_MS).
 */
describe('Idempotency-Key when the reply is lost (e2e, private NATS)', () => {
  let nats: PrivateServer;
  let services: ServicesHandle;
  let account: CreatedAccount;
  let db: pg.Client;

  beforeAll(async () => {
    nats = await startPrivateNats();
    services = await startServices({ infra: { natsUrl: nats.url }, env: { RPC_TIMEOUT_MS: '4000' } });
    account = await createAccount(services, { name: 'Lost replies' });
    db = new pg.Client({ connectionString: services.database.url });
    await db.connect();
  });

  afterAll(async () => {
    await db?.end();
    await services?.stopAll();
    await nats?.destroy();
  });

  const contactsNamed = async (name: string): Promise<string[]> =>
    (
      await db.query<{ id: string }>(`SELECT id FROM crm.contacts WHERE account_id = $1 AND last_name = $2 AND deleted_at IS NULL`, [
        account.account.id,
        name,
      ])
    ).rows.map((r) => r.id);

  /** A second connection holds SHARE on crm.contacts (inserts wait, reads do not) until `release`. */
  async function holdContactInserts(): Promise<{ waiting(): Promise<void>; release(): Promise<void> }> {
    const holder = new pg.Client({ connectionString: services.database.url });
    await holder.connect();
    await holder.query('BEGIN');
    await holder.query('LOCK TABLE crm.contacts IN SHARE MODE');
    return {
      async waiting() {
        for (let i = 0; i < 200; i++) {
          const { rows } = await db.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM pg_locks WHERE NOT granted AND relation = 'crm.contacts'::regclass`,
          );
          if (rows[0].n > 0) return;
          await new Promise((r) => setTimeout(r, 50));
        }
        throw new Error('crm-core never waited for the lock on crm.contacts');
      },
      async release() {
        await holder.query('ROLLBACK');
        await holder.end();
      },
    };
  }

  /** Waits until the gateway at `url` is ready again (after NATS came back). */
  async function ready(url: string): Promise<void> {
    for (let i = 0; i < 200; i++) {
      const res = await fetch(`${url}/readyz`).catch(() => undefined);
      if (res?.ok) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`${url} never got ready`);
  }

  /** A careful client: retries (with the same key) while the answer is 503, as crm-core may still be reconnecting. */
  async function untilAnswered<T extends { status: number }>(send: () => Promise<T>): Promise<T> {
    let answer = await send();
    for (let i = 0; i < 40 && answer.status === 503; i++) {
      await new Promise((r) => setTimeout(r, 250));
      answer = await send();
    }
    return answer;
  }

  it('a reply lost in a NATS outage: the 503 says the write may have been applied; the retry answers the committed record', async () => {
    const post = api(services, account);
    const body = { last_name: 'Lost in NATS' };
    const lock = await holdContactInserts();
    const first = post<{ error_message: string }>('POST', '/contacts', body, { 'idempotency-key': 'lost-in-nats' });
    await lock.waiting();
    await nats.stop();
    await lock.release(); // crm-core commits now, and publishes its reply into a connection that is down
    const answer = await first;
    expect(answer.status).toBe(503);
    expect(answer.body.error_message).toMatch(/may have been applied/);
    expect(answer.body.error_message).toMatch(/same Idempotency-Key/);

    await nats.start();
    await ready(services.gatewayUrl);
    // crm-core committed behind the 503.
    const committed = await contactsNamed(body.last_name);
    expect(committed).toHaveLength(1);

    const retry = await untilAnswered(() => post<ContactEnvelope>('POST', '/contacts', body, { 'idempotency-key': 'lost-in-nats' }));
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body.data.contact.id).toBe(committed[0]);
    expect(await contactsNamed(body.last_name)).toEqual(committed);

    // The same key with another request is still 409.
    const other = await post('POST', '/contacts', { last_name: 'Another' }, { 'idempotency-key': 'lost-in-nats' });
    expect(other.status).toBe(409);
    expect(await contactsNamed('Another')).toEqual([]);
  });

  it('a write held past the deadline is abandoned, not committed: the retry with the key writes it once', async () => {
    const post = api(services, account);
    const body = { last_name: 'Past the deadline' };
    const lock = await holdContactInserts();
    const first = post<{ error_message: string }>('POST', '/contacts', body, { 'idempotency-key': 'past-deadline' });
    await lock.waiting();
    const answer = await first; // 503 at the gateway's 4 s, crm-core still waiting
    expect(answer.status).toBe(503);
    await lock.release();

    const retry = await post<ContactEnvelope>('POST', '/contacts', body, { 'idempotency-key': 'past-deadline' });
    expect(retry.status).toBe(201);
    const committed = await contactsNamed(body.last_name);
    expect(committed).toEqual([retry.body.data.contact.id]);
    const again = await post<ContactEnvelope>('POST', '/contacts', body, { 'idempotency-key': 'past-deadline' });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.data.contact.id).toBe(committed[0]);
    expect(await contactsNamed(body.last_name)).toEqual(committed);
  });

  it('a POST without a key that gets no answer says the write may have been applied and how to retry safely', async () => {
    const lock = await holdContactInserts();
    const first = api(services, account)<{ error_message: string }>('POST', '/contacts', { last_name: 'Unkeyed' });
    await lock.waiting();
    const answer = await first;
    await lock.release();
    expect(answer.status).toBe(503);
    expect(answer.body.error_message).toMatch(/may have been applied/);
    expect(answer.body.error_message).toMatch(/Idempotency-Key/);
  });
  // Last: the other tests use the first gateway.
  it('a gateway killed while crm-core commits: the retry through another gateway answers the committed record', async () => {
    const gateway = services.processes.find((p) => p.app === 'api-gateway')!;
    const body = { last_name: 'Gateway gone' };
    const lock = await holdContactInserts();
    const first = api(services, account)('POST', '/contacts', body, { 'idempotency-key': 'gateway-gone' }).catch((error: Error) => error);
    await lock.waiting();
    await gateway.stop('SIGKILL');
    await lock.release();
    // The connection was cut: no answer at all (fetch failed).
    expect(await first).not.toHaveProperty('status');

    const replacement = await services.startProcess!('api-gateway', 'api-gateway-2');
    const url = `http://127.0.0.1:${replacement.port}`;
    // The killed gateway's pending Redis record expires within seconds; crm-core decides the retry.
    let retry = await api({ gatewayUrl: url }, account)<ContactEnvelope>('POST', '/contacts', body, { 'idempotency-key': 'gateway-gone' });
    for (let i = 0; i < 5 && retry.status === 409; i++)
      retry = await api({ gatewayUrl: url }, account)<ContactEnvelope>('POST', '/contacts', body, { 'idempotency-key': 'gateway-gone' });
    expect(retry.status).toBe(201);
    const committed = await contactsNamed(body.last_name);
    expect(committed).toHaveLength(1);
    expect(retry.body.data.contact.id).toBe(committed[0]);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
  });
});
