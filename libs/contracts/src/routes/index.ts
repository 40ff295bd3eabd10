export * from './api-routes';
export * from './empty.request';
export * from './route-declaration';
