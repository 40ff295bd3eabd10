import { READ_AFTER_NOTHING, READ_FROM_PRIMARY, type Caller } from '@crm/contracts';
import { createLogger, createMetricsRegistry } from '@crm/observability';
import { resolveTestInfra, uniqueNamespace } from '@crm/testing';
import { Redis } from 'ioredis';
import { GatewayConfig } from '../config/gateway.config';
import { READ_POSITION_TTL_MS, ReadPositions } from './read-positions';

const logger = createLogger('read-positions-test', 'silent');
const caller = (user_id: string, account_id = 'acct-1'): Caller => ({
  account_id,
  user_id,
  role: 'user',
  auth_method: 'api_key',
  scopes: ['crm'],
});

/** The gateway's read-your-writes positions on the real Redis (decisions.md "Reads from a replica"). */
describe('ReadPositions (real Redis)', () => {
  let redis: Redis;
  let dead: Redis;
  let positions: ReadPositions;
  let namespace: string;

  beforeAll(async () => {
    redis = new Redis(resolveTestInfra().redisUrl);
    // Nothing listens on port 1: every command fails at once.
    dead = new Redis('redis://127.0.0.1:1', { maxRetriesPerRequest: 0, enableOfflineQueue: false, lazyConnect: true });
    dead.on('error', () => undefined);
  });

  beforeEach(() => {
    namespace = uniqueNamespace('rpos');
    positions = new ReadPositions(
      redis,
      Object.assign(new GatewayConfig(), { CRM_NAMESPACE: namespace }),
      logger,
      createMetricsRegistry('t'),
    );
  });

  afterAll(() => {
    redis.disconnect();
    dead.disconnect();
  });

  it('answers 0/0 before any write, then the highest position written, by user and by account', async () => {
    expect(await positions.lookup(caller('u1'))).toBe(READ_AFTER_NOTHING);
    await positions.record(caller('u1'), '0/2A0');
    // A lower position (a slower write's reply) never lowers it; positions compare as numbers, not text.
    await positions.record(caller('u1'), '0/FF');
    expect(await positions.lookup(caller('u1'))).toBe('0/2A0');
    await positions.record(caller('u1'), '1/10');
    expect(await positions.lookup(caller('u1'))).toBe('1/10');
    // Another user of the account reads after the account's writes; another account's user does not.
    expect(await positions.lookup(caller('u2'))).toBe('1/10');
    expect(await positions.lookup(caller('u3', 'acct-2'))).toBe(READ_AFTER_NOTHING);
    // The keys carry one hash tag each (Redis Cluster) and expire after the TTL.
    const userKey = `${namespace}:gw:rpos:user:{u1}`;
    expect(await redis.get(userKey)).toBe('1/10');
    const ttl = await redis.pttl(userKey);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(READ_POSITION_TTL_MS);
    expect(await redis.get(`${namespace}:gw:rpos:account:{acct-1}`)).toBe('1/10');
  });

  it('ignores a reply position that is not a pg_lsn', async () => {
    await positions.record(caller('u1'), 'not-a-position');
    expect(await positions.lookup(caller('u1'))).toBe(READ_AFTER_NOTHING);
  });

  it('asks for the primary when Redis cannot answer, and counts it; a lost record does not fail the write', async () => {
    const registry = createMetricsRegistry('t');
    const down = new ReadPositions(dead, Object.assign(new GatewayConfig(), { CRM_NAMESPACE: namespace }), logger, registry);
    expect(await down.lookup(caller('u1'))).toBe(READ_FROM_PRIMARY);
    await expect(down.record(caller('u1'), '0/10')).resolves.toBeUndefined();
    const failures = (await registry.getSingleMetric('gateway_read_position_failures_total')!.get()).values;
    expect(Object.fromEntries(failures.map((v) => [v.labels.operation, v.value]))).toEqual({ lookup: 1, record: 1 });
  });
});
