import type { Role } from '../rpc/caller';

/** Account rights of the spec (values seen). */
export const ACCOUNT_RIGHTS = ['activity', 'edit_target', 'pipeline', 'export', 'private_contacts'] as const;
export type AccountRight = (typeof ACCOUNT_RIGHTS)[number];

export const USER_PERMISSIONS = ['delete_contacts'] as const;
export type UserPermission = (typeof USER_PERMISSIONS)[number];

/** The User record as the API shows it (spec "User"). */
export interface UserDto {
  id: string;
  first_name: string;
  last_name: string;
  email: string;
  company_name: string;
  account_rights: AccountRight[];
  permissions: UserPermission[];
  role: Role;
  photo_url: string;
  country_code: string;
  /** Only when the requested id is the caller's own. */
  bcc_email?: string;
  /** Only when the requested id is the caller's own. */
  google_contacts_email?: string;
}
