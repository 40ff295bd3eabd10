export * from './configuration.subjects';
export * from './configuration.routes';
export * from './summary.dto';
