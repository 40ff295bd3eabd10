import type { PredefinedActionDto, PredefinedActionGroupDto } from '@crm/contracts';
import type { PredefinedActionGroupRow, PredefinedActionRow } from './predefined-actions.repository';
import { isoOf } from '../records/record-common';

export function toPredefinedActionDto(row: PredefinedActionRow): PredefinedActionDto {
  return {
    id: row.id,
    text: row.text,
    status: row.status,
    days_after: row.days_after,
    days: row.days_after,
    time: row.time,
    predefined_action_group_id: row.group_id,
    created_at: isoOf(row.created_at),
    modified_at: isoOf(row.modified_at),
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
    created_at: isoOf(row.created_at),
    modified_at: isoOf(row.modified_at),
  };
}
