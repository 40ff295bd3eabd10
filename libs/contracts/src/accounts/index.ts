export * from './provision-account.message';
