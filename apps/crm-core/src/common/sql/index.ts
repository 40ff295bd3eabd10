export * from './sql';
export * from './db';
