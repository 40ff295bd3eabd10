export * from './call.dto';
export * from './call.requests';
export * from './call.routes';
export * from './call.subjects';
