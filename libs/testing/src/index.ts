export * from './database';
export * from './infra';
export * from './private-servers';
export * from './services';
export { ensureTestInfra, stopTestContainers } from './infra-setup';
