export * from './account-settings';
export * from './account.subjects';
export * from './provision-account.message';
