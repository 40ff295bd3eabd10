export * from './field.routes';
