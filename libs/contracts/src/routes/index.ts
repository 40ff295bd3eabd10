export * from './api-routes';
export * from './route-declaration';
