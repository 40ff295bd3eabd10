export * from './caller';
export * from './rpc-message';
export * from './subjects';
