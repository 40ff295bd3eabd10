import type { StatusDto } from '@crm/contracts';
import { countFields, type GroupCounts } from '../summary/counts';
import type { StatusRow } from './statuses.repository';

export function toStatusDto(row: StatusRow, group: GroupCounts | undefined, userIds: readonly string[], callerId: string): StatusDto {
  return {
    id: row.id,
    status: row.status,
    text: row.text,
    description: row.description,
    color: row.color,
    ...countFields(group, userIds, callerId),
  };
}
