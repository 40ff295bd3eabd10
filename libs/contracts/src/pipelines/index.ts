export * from './pipeline.dto';
export * from './pipeline.requests';
export * from './pipeline.routes';
export * from './pipeline.subjects';
