export * from './address.requests';
