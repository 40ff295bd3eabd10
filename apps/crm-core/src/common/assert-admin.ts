/** Writes to account configuration are admin only (decisions.md "Configuration and users"). */
export { assertAdmin } from '@crm/contracts';
