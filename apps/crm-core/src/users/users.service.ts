import { Injectable } from '@nestjs/common';
import { isId } from '@crm/common';
import {
  ApiError,
  pageInfo,
  type Caller,
  type GetUserReply,
  type GetUserRequest,
  type ListUsersReply,
  type ListUsersRequest,
} from '@crm/contracts';
import { DataSource } from 'typeorm';
import { toUserDto } from './user.view';
import { UsersRepository } from './users.repository';

@Injectable()
export class UsersService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly users: UsersRepository,
  ) {}

  async get(caller: Caller, request: GetUserRequest): Promise<GetUserReply> {
    const userId = request.user_id.toLowerCase();
    const user = isId(userId) ? await this.users.find(this.dataSource.manager, caller.account_id, userId) : undefined;
    if (!user) throw ApiError.notFound('User not found');
    return { user: toUserDto(user, caller) };
  }

  async list(caller: Caller, request: ListUsersRequest): Promise<ListUsersReply> {
    const { page, per_page } = request;
    const db = this.dataSource.manager;
    const { total, rows: users } = await this.users.page(db, caller.account_id, request, page, per_page);
    return { users: users.map((user) => ({ user: toUserDto(user, caller) })), ...pageInfo(total, page, per_page) };
  }
}
