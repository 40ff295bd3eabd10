export * from './predefined-item.dto';
export * from './predefined-item.requests';
export * from './predefined-item.routes';
export * from './predefined-item.subjects';
