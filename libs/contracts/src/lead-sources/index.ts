export * from './lead-source.dto';
export * from './lead-source.requests';
export * from './lead-source.routes';
export * from './lead-source.subjects';
