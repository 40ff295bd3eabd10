export * from './credential-record';
export * from './credential.routes';
export * from './credential.subjects';
