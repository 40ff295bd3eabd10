export * from './call-result.dto';
export * from './call-result.requests';
export * from './call-result.routes';
export * from './call-result.subjects';
