export * from './record.subjects';
export * from './record.routes';
export * from './action.dto';
