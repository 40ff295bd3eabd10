import type { PredefinedActionDto, PredefinedActionGroupDto } from '@crm/contracts';
import type { PredefinedActionGroupRow, PredefinedActionRow } from './predefined-actions.repository';

export function toPredefinedActionDto(row: PredefinedActionRow): PredefinedActionDto {
  return {
    id: row.id,
    text: row.text,
    status: row.status,
    days_after: row.days_after,
    days: row.days_after,
    time: row.time,
    predefined_action_group_id: row.group_id,
    created_at: new Date(row.created_at).toISOString(),
    modified_at: new Date(row.modified_at).toISOString(),
  };
}

export function toPredefinedActionGroupDto(row: PredefinedActionGroupRow): PredefinedActionGroupDto {
  return {
    id: row.id,
    name: row.name,
    text: row.name,
    position: row.position,
    predefined_action_ids: row.member_ids,
    action_ids: row.member_ids,
    created_at: new Date(row.created_at).toISOString(),
    modified_at: new Date(row.modified_at).toISOString(),
  };
}
