import type { LeadSourceDto } from '@crm/contracts';
import { countFields, type GroupCounts } from '../summary/counts';
import type { LeadSourceRow } from './lead-sources.repository';

export function toLeadSourceDto(
  row: LeadSourceRow,
  group: GroupCounts | undefined,
  userIds: readonly string[],
  callerId: string,
): LeadSourceDto {
  return { id: row.id, text: row.text, ...countFields(group, userIds, callerId) };
}
