export * from './api-error';
export * from './error-name';
