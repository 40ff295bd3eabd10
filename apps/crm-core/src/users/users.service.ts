import { Injectable } from '@nestjs/common';
import { isId } from '@crm/common';
import {
  ApiError,
  GetUserRequest,
  ListUsersRequest,
  pageInfo,
  parseContract,
  type AccountRight,
  type Caller,
  type GetUserReply,
  type ListUsersReply,
  type UserDto,
  type UserPermission,
} from '@crm/contracts';
import type { UserEntity } from './entities/user.entity';
import { UsersRepository } from './users.repository';

@Injectable()
export class UsersService {
  constructor(private readonly users: UsersRepository) {}

  async get(caller: Caller, payload: unknown): Promise<GetUserReply> {
    const request = parseContract(GetUserRequest, payload);
    const userId = request.user_id.toLowerCase();
    const user = isId(userId) ? await this.users.findInAccount(caller.account_id, userId) : null;
    if (!user) throw ApiError.notFound('User not found');
    return { user: toUserDto(user, caller) };
  }

  async list(caller: Caller, payload: unknown): Promise<ListUsersReply> {
    const request = parseContract(ListUsersRequest, payload);
    const { page, per_page } = request;
    const [users, total] = await this.users.pageInAccount(caller.account_id, page, per_page, request);
    return { users: users.map((user) => ({ user: toUserDto(user, caller) })), ...pageInfo(total, page, per_page) };
  }
}

/** The API's User: bcc_email and google_contacts_email only for the caller's own record. */
export function toUserDto(user: UserEntity, caller: Caller): UserDto {
  const dto: UserDto = {
    id: user.id,
    first_name: user.firstName,
    last_name: user.lastName,
    email: user.email,
    company_name: user.companyName,
    account_rights: user.accountRights as AccountRight[],
    permissions: user.permissions as UserPermission[],
    role: user.role,
    photo_url: user.photoUrl,
    country_code: user.countryCode,
  };
  if (user.id === caller.user_id) {
    dto.bcc_email = user.bccEmail;
    dto.google_contacts_email = user.googleContactsEmail;
  }
  return dto;
}
