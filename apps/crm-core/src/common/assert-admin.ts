import { ApiError, ErrorName, type Caller } from '@crm/contracts';

/** Writes to account configuration are admin only (decisions.md "Configuration and users"). */
export function assertAdmin(caller: Caller): void {
  if (caller.role !== 'admin') throw new ApiError(ErrorName.NoPermission, 'Only account administrators can change the account configuration');
}
