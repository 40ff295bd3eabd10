export * from './database';
export * from './infra';
export * from './private-servers';
export * from './pg-replica';
export * from './services';
export * from './s3-server';
export * from './streams';
export { ensureTestInfra, stopTestContainers } from './infra-setup';
export * from './nats-cluster';
