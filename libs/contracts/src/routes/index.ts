export * from './api-routes';
export * from './contract-schemas.generated';
export * from './empty.request';
export * from './parameter-docs';
export * from './reply-types';
export * from './route-declaration';
