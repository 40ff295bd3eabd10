export * from './caller';
export * from './rpc-message';
export * from './subject-groups';
export * from './subjects';
