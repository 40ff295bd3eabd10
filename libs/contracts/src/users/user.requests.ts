import { Transform } from 'class-transformer';
import { IsBoolean, IsOptional, IsString, Length, MaxLength, ValidateIf } from 'class-validator';
import { ONEPAGECRM_USERS_CAP, type OnePageCrmList } from '../paging/list-format';
import { TimeFilterRequest } from '../paging/time-filter.request';
import { PartialFlag } from '../validation/field-rules';
import { toBoolean, trim } from '../validation/transforms';
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

/** GET /users in the spec's paged format (the default). */
export interface PagedUsersReply {
  users: Array<{ user: UserDto }>;
  total_count: number;
  page: number;
  per_page: number;
  max_page: number;
}

/** GET /users: paged, or OnePageCRM's bare array of `{ user }` (list_format `onepagecrm`; list-format.ts). */
export type ListUsersReply = PagedUsersReply | Array<{ user: UserDto }>;

/** GET /users in OnePageCRM's format: the paged entries as they are. */
export const ONEPAGECRM_USERS_LIST: OnePageCrmList<PagedUsersReply, { user: UserDto }> = {
  entries: (page) => page.users,
  cap: ONEPAGECRM_USERS_CAP,
};

/**
 * PUT /users/{user_id}: the fields OnePageCRM lets the API edit. The caller's own profile, or any
 * user's for an administrator (checked before the body). Replaces first_name, last_name and
 * company_name (absent company_name: empty); `partial=true` changes only what is sent.
 * `bcc_email: true` gives the caller a new BCC address (only one's own).
 */
export class UpdateUserRequest extends GetUserRequest {
  @ValidateIf((o: UpdateUserRequest) => o.partial !== true || o.first_name !== undefined)
  @Transform(trim)
  @IsString({ message: 'first_name must be 1 to 100 characters' })
  @Length(1, 100, { message: 'first_name must be 1 to 100 characters' })
  first_name?: string;

  @ValidateIf((o: UpdateUserRequest) => o.partial !== true || o.last_name !== undefined)
  @Transform(trim)
  @IsString({ message: 'last_name must be 1 to 100 characters' })
  @Length(1, 100, { message: 'last_name must be 1 to 100 characters' })
  last_name?: string;

  @ValidateIf((o: UpdateUserRequest) => o.company_name !== undefined && o.company_name !== null)
  @Transform(trim)
  @IsString({ message: 'company_name must be a string of at most 200 characters' })
  @MaxLength(200, { message: 'company_name must be a string of at most 200 characters' })
  company_name?: string | null;

  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean({ message: 'bcc_email must be true (a new BCC address) or false' })
  bcc_email?: boolean;

  @PartialFlag()
  partial?: boolean;
}
