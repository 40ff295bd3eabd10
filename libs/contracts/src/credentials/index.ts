export * from './credential-record';
