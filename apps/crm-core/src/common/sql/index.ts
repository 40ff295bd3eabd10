export * from './sql';
export * from './db';
export * from './time-filters';
export * from './page';
export * from './like';
