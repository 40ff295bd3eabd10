export * from './logger';
export * from './metrics';
export * from './nest-logger';
export * from './request-context';
export * from './tracing';
