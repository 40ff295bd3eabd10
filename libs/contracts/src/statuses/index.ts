export * from './status.dto';
export * from './status.requests';
export * from './status.routes';
export * from './status.subjects';
