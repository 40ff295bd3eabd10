export * from './field.dto';
export * from './field.requests';
export * from './field.routes';
export * from './field.subjects';
