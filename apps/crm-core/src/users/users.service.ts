import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { isId } from '@crm/common';
import {
  ApiError,
  assertAdmin,
  pageInfo,
  type Caller,
  type GetUserReply,
  type GetUserRequest,
  type PagedUsersReply,
  type ListUsersRequest,
  type UpdateUserRequest,
} from '@crm/contracts';
import { DataSource } from 'typeorm';
import { CrmCoreConfig } from '../config/crm-core.config';
import { bccEmailOf } from '../accounts/account.rules';
import { updatedProfile } from './user.rules';
import { toUserDto } from './user.view';
import { UsersRepository } from './users.repository';

@Injectable()
export class UsersService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly users: UsersRepository,
    private readonly config: CrmCoreConfig,
  ) {}

  async get(caller: Caller, request: GetUserRequest): Promise<GetUserReply> {
    const userId = request.user_id.toLowerCase();
    const user = isId(userId) ? await this.users.find(this.dataSource.manager, caller.account_id, userId) : undefined;
    if (!user) throw ApiError.notFound('User not found');
    return { user: toUserDto(user, caller) };
  }

  async list(caller: Caller, request: ListUsersRequest): Promise<PagedUsersReply> {
    const { page, per_page } = request;
    const db = this.dataSource.manager;
    const { total, rows: users } = await this.users.page(db, caller.account_id, request, page, per_page);
    return { users: users.map((user) => ({ user: toUserDto(user, caller) })), ...pageInfo(total, page, per_page) };
  }

  /**
   * PUT /users/{id}: one's own profile, or anyone's for an administrator (the gateway checked it
   * first). `bcc_email: true` makes a new BCC address: the old one stops naming the user.
   */
  async update(caller: Caller, request: UpdateUserRequest): Promise<GetUserReply> {
    const userId = request.user_id.toLowerCase();
    const own = userId === caller.user_id;
    if (!own) assertAdmin(caller, 'Only account administrators can change another user');
    if (request.bcc_email === true && !own) throw ApiError.invalid({ bcc_email: 'only your own BCC address can be renewed' });
    return this.dataSource.transaction(async (tx) => {
      const user = isId(userId) ? await this.users.find(tx, caller.account_id, userId, true) : undefined;
      if (!user) throw ApiError.notFound('User not found');
      const bcc =
        request.bcc_email === true
          ? bccEmailOf(`${user.id}.${randomBytes(4).toString('hex')}`, this.config.BCC_EMAIL_DOMAIN)
          : user.bcc_email;
      await this.users.updateProfile(tx, user.id, { ...updatedProfile(user, request), bcc_email: bcc });
      const updated = await this.users.find(tx, caller.account_id, user.id);
      return { user: toUserDto(updated ?? user, caller) };
    });
  }
}
