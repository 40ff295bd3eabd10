export * from './database-options';
export * from './migrate';
export * from './database.module';
export * from './pool-metrics';
export * from './sql';
