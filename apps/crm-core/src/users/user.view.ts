import type { AccountRight, Caller, UserDto, UserPermission } from '@crm/contracts';
import type { UserRow } from './users.repository';

/** The API's User: bcc_email and google_contacts_email only for the caller's own record. */
export function toUserDto(user: UserRow, caller: Caller): UserDto {
  const dto: UserDto = {
    id: user.id,
    first_name: user.first_name,
    last_name: user.last_name,
    email: user.email,
    company_name: user.company_name,
    account_rights: user.account_rights as AccountRight[],
    permissions: user.permissions as UserPermission[],
    role: user.role,
    photo_url: user.photo_url,
    country_code: user.country_code,
  };
  if (user.id === caller.user_id) {
    dto.bcc_email = user.bcc_email;
    dto.google_contacts_email = user.google_contacts_email;
  }
  return dto;
}
