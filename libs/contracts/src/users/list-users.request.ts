import { PagingRequest } from '../paging/paging.request';

export class ListUsersRequest extends PagingRequest {}

export interface ListUsersReply {
  users: Array<{ user: import('./user.dto').UserDto }>;
  total_count: number;
  page: number;
  per_page: number;
  max_page: number;
}
