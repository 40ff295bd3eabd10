import { TimeFilterRequest } from '../paging/time-filter.request';

export class ListUsersRequest extends TimeFilterRequest {}

export interface ListUsersReply {
  users: Array<{ user: import('./user.dto').UserDto }>;
  total_count: number;
  page: number;
  per_page: number;
  max_page: number;
}
