import { ensureTestInfra } from './infra-setup';

/**
 * Jest globalSetup of the integration tier: points DATABASE_URL, REDIS_URL and NATS_URL at real
 * servers (the ones configured, else the local defaults, else testcontainers when a Docker engine
 * is available). Workers inherit process.env, so every test sees the same servers.
 */
export default async function globalSetup(): Promise<void> {
  await ensureTestInfra('integration');
}
