export * from './relationship-type.dto';
export * from './relationship-type.requests';
export * from './relationship-type.routes';
export * from './relationship-type.subjects';
