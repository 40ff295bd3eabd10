export * from './ids';
export * from './secrets';
