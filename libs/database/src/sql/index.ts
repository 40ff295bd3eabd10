export * from './sql';
export * from './executors';
