export * from './caller';
export * from './rpc-message';
export * from './subjects';
export * from './write-idempotency';
