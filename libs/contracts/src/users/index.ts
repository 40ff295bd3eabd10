export * from './user.dto';
export * from './user.requests';
export * from './user.routes';
export * from './user.subjects';
