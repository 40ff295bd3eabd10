export * from './get-user.request';
export * from './list-users.request';
export * from './user.dto';
