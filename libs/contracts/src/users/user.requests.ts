import { IsString } from 'class-validator';
import { TimeFilterRequest } from '../paging/time-filter.request';
import type { UserDto } from './user.dto';

export class GetUserRequest {
  /** Any string: an id that names no user of the caller's account is 404, not 400. */
  @IsString()
  user_id: string;
}

export interface GetUserReply {
  user: UserDto;
}

export class ListUsersRequest extends TimeFilterRequest {}

export interface ListUsersReply {
  users: Array<{ user: UserDto }>;
  total_count: number;
  page: number;
  per_page: number;
  max_page: number;
}
