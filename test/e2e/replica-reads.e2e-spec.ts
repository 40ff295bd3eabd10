import { startPostgresPrimaryWithReplica, type PostgresPrimaryWithReplica } from '@crm/testing';
import { Client } from 'pg';
import { calls, setupE2e } from './setup';
import { metric, until } from './webhook-helpers';

/**
 * crm-core with a streaming replica, through the gateway (decisions.md "Reads from a replica"):
 * the four services on a private primary whose replica crm-core reads from. A client reads its
 * own write at once, even while the replica applies nothing; a read with no recent write of its
 * user or account is answered by the replica; with the replica stopped every read still succeeds.
 */
// initdb, a base backup and the services' start-up: more than the tier's default on a loaded machine.
jest.setTimeout(300_000);

describe('reads from a replica (e2e)', () => {
  let pair: PostgresPrimaryWithReplica;
  let databaseName = '';
  const { services, admin, member, stranger } = setupE2e({
    member: true,
    stranger: true,
    services: async () => {
      pair = await startPostgresPrimaryWithReplica();
      return {
        infra: { databaseUrl: pair.primaryUrl },
        env: { REPLICA_POLL_MS: '20', REPLICA_MAX_LAG_MS: '1000' },
        prepareDatabase: async (database) => {
          databaseName = database.name;
          const replica = new URL(pair.replicaUrl);
          replica.pathname = `/${database.name}`;
          return { appEnv: { 'crm-core': { DATABASE_REPLICA_URL: replica.toString() } } };
        },
      };
    },
  });
  const { call, ok } = calls(services);
  const crmCore = () => services.processes.find((p) => p.app === 'crm-core')!.metricsPort;

  afterAll(async () => {
    await pair?.destroy();
  }, 60_000);

  const onReplica = async (text: string, values: unknown[]): Promise<unknown[]> => {
    const url = new URL(pair.replicaUrl);
    url.pathname = `/${databaseName}`;
    const client = new Client({ connectionString: url.toString() });
    await client.connect();
    try {
      return (await client.query(text, values)).rows;
    } finally {
      await client.end();
    }
  };

  it("answers a read after a write with the write, for its user and the account's other users, while the replica applies nothing", async () => {
    await pair.pauseReplay();
    try {
      const contact = await ok(admin, 'POST', '/contacts', { first_name: 'Rita', last_name: 'Replica' }, 201);
      const id = contact.contact.id as string;
      // The replica does not have it...
      expect(await onReplica('SELECT id FROM crm.contacts WHERE id = $1', [id])).toEqual([]);
      // ...yet the writer, and another user of the account, read it (from the primary).
      expect((await ok(admin, 'GET', `/contacts/${id}`)).contact.last_name).toBe('Replica');
      expect((await call(member)('GET', `/contacts/${id}`)).status).toBe(200);
      expect(await metric(crmCore(), 'crm_db_reads_total', 'target="primary"')).toBeGreaterThanOrEqual(2);
    } finally {
      await pair.resumeReplay();
    }
  });

  it('answers a read with no recent write of its user or account from the replica', async () => {
    await pair.waitForReplay();
    // The stranger's account has written nothing through the API: any replayed position will do.
    await until('a read of the stranger is answered by the replica', async () => {
      const before = (await metric(crmCore(), 'crm_db_reads_total', 'target="replica"')) ?? 0;
      expect((await call(stranger)('GET', '/contacts')).status).toBe(200);
      const after = (await metric(crmCore(), 'crm_db_reads_total', 'target="replica"')) ?? 0;
      return after > before ? true : null;
    });
    const lag = await metric(crmCore(), 'crm_db_replica_lag_seconds');
    expect(lag).not.toBeNull();
    expect(lag!).toBeGreaterThanOrEqual(0);
  });

  it('answers every read, from the primary, while the replica is stopped', async () => {
    await pair.stopReplica();
    try {
      const contact = await ok(stranger, 'POST', '/contacts', { first_name: 'Otto', last_name: 'Outage' }, 201);
      for (let i = 0; i < 3; i += 1) {
        expect((await call(stranger)('GET', `/contacts/${contact.contact.id}`)).status).toBe(200);
        expect((await call(admin)('GET', '/contacts')).status).toBe(200);
      }
    } finally {
      await pair.startReplica();
    }
  });
});
