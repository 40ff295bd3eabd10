export * from './notification.dto';
export * from './notification.requests';
export * from './notification.routes';
export * from './notification.subjects';
