import { ApiError } from '../errors/api-error';
import { ErrorName } from '../errors/error-name';

/** How the caller authenticated at the gateway. */
export type AuthMethod = 'api_key' | 'oauth';

/** OAuth scopes of the spec; an API key acts with the full `crm` scope. */
export type Scope = 'crm' | 'crm.readonly' | 'mcp';

export type Role = 'admin' | 'user';

/**
 * The authenticated identity. It travels with every NATS request; every query in crm-core is
 * scoped by `account_id`, so another account's record is simply not found.
 */
export interface Caller {
  account_id: string;
  user_id: string;
  role: Role;
  auth_method: AuthMethod;
  scopes: Scope[];
  /** OAuth client id when auth_method is oauth. */
  client_id?: string;
}

/** Writes to account configuration (and webhook management) are admin only (decisions.md). */
export function assertAdmin(caller: Caller, message = 'Only account administrators can change the account configuration'): void {
  if (caller.role !== 'admin') throw new ApiError(ErrorName.NoPermission, message);
}
