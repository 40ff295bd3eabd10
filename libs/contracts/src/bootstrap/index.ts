export * from './bootstrap.dto';
export * from './bootstrap.requests';
export * from './bootstrap.routes';
export * from './bootstrap.subjects';
export * from './summary.dto';
