export * from './action.dto';
export * from './action.requests';
export * from './action.routes';
export * from './action.subjects';
