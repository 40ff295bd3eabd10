export * from './cache-keys';
