export * from './filter.dto';
export * from './filter.requests';
export * from './filter.routes';
export * from './filter.subjects';
