import { stopTestContainers } from './infra-setup';

/** Jest globalTeardown: stops containers the global setup started (none when local servers ran). */
export default async function globalTeardown(): Promise<void> {
  await stopTestContainers();
}
