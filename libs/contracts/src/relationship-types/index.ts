export * from './relationship-type.routes';
