export * from './configuration.subjects';
export * from './configuration.routes';
