/** Subjects of users: gateway -> crm-core; spread into {@link Subjects}. */
export const UserSubjects = {
  /** gateway -> crm-core: GET /users/{user_id}. */
  UsersGet: 'crm.users.get.v1',
  /** gateway -> crm-core: GET /users. */
  UsersList: 'crm.users.list.v1',
  /** gateway -> crm-core: PUT /users/{user_id}. */
  UsersUpdate: 'crm.users.update.v1',
} as const;
