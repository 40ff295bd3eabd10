export * from './predefined-action.dto';
export * from './predefined-action.requests';
export * from './predefined-action.routes';
export * from './predefined-action.subjects';
