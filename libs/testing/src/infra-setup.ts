import { isReachable, resolveTestInfra, type TestInfra } from './infra';

interface Stoppable {
  stop(): Promise<unknown>;
}

const CONTAINERS = Symbol.for('crm.testing.containers');
type GlobalWithContainers = typeof globalThis & { [CONTAINERS]?: Stoppable[] };

const log = (message: string) => process.stderr.write(`[test-infra] ${message}\n`);

/**
 * Makes sure PostgreSQL, Redis and NATS (JetStream) answer and exports their URLs to process.env.
 * Order of preference: the URLs in the environment, the machine's local servers, and only when
 * those are unreachable, throwaway containers (testcontainers; needs a Docker engine).
 */
export async function ensureTestInfra(tier: string): Promise<TestInfra> {
  const infra = resolveTestInfra();
  const checks = await Promise.all([
    isReachable(infra.databaseUrl, 5432),
    isReachable(infra.redisUrl, 6379),
    isReachable(infra.natsUrl, 4222),
  ]);
  const [pgUp, redisUp, natsUp] = checks;
  if (!pgUp || !redisUp || !natsUp) {
    const missing = [
      !pgUp && `PostgreSQL (${infra.databaseUrl})`,
      !redisUp && `Redis (${infra.redisUrl})`,
      !natsUp && `NATS (${infra.natsUrl})`,
    ].filter(Boolean);
    log(`${tier}: not reachable: ${missing.join(', ')}; starting containers with testcontainers`);
    await startContainers(infra, { pg: !pgUp, redis: !redisUp, nats: !natsUp }).catch((error: unknown) => {
      throw new Error(
        `${missing.join(', ')} not reachable and no container could be started (${error instanceof Error ? error.message : String(error)}). ` +
          'Start the local servers (bash scripts/test.sh does it: apt-get install postgresql redis-server nats-server) or set DATABASE_URL, REDIS_URL and NATS_URL.',
      );
    });
  }
  process.env.DATABASE_URL = infra.databaseUrl;
  process.env.REDIS_URL = infra.redisUrl;
  process.env.NATS_URL = infra.natsUrl;
  return infra;
}

async function startContainers(infra: TestInfra, need: { pg: boolean; redis: boolean; nats: boolean }): Promise<void> {
  const started: Stoppable[] = ((globalThis as GlobalWithContainers)[CONTAINERS] ??= []);
  const { GenericContainer, Wait } = await import('testcontainers');
  if (need.pg) {
    const { PostgreSqlContainer } = await import('@testcontainers/postgresql');
    const pg = await new PostgreSqlContainer('postgres:15')
      .withUsername('postgres')
      .withPassword('postgres')
      .withDatabase('postgres')
      .start();
    started.push(pg);
    infra.databaseUrl = pg.getConnectionUri();
  }
  if (need.redis) {
    const { RedisContainer } = await import('@testcontainers/redis');
    const redis = await new RedisContainer('redis:7').start();
    started.push(redis);
    infra.redisUrl = redis.getConnectionUrl();
  }
  if (need.nats) {
    const nats = await new GenericContainer('nats:2.10')
      .withCommand(['-js'])
      .withExposedPorts(4222)
      .withWaitStrategy(Wait.forLogMessage(/Server is ready/))
      .start();
    started.push(nats);
    infra.natsUrl = `nats://${nats.getHost()}:${nats.getMappedPort(4222)}`;
  }
}

export async function stopTestContainers(): Promise<void> {
  const started = (globalThis as GlobalWithContainers)[CONTAINERS] ?? [];
  await Promise.allSettled(started.map((c) => c.stop()));
  started.length = 0;
}
