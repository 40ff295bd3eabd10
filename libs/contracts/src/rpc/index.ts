export * from './caller';
export * from './read-consistency';
export * from './rpc-message';
export * from './subjects';
export * from './write-idempotency';
