export * from './client';
export type { components, operations, paths } from './schema';
