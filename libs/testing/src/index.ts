export * from './database';
export * from './infra';
export * from './services';
export { ensureTestInfra, stopTestContainers } from './infra-setup';
