import type { ActionDto } from '@crm/contracts';
import { isoOf, plainDateOf } from '../records/record-common';
import type { ActionRow } from './actions.repository';

/**
 * The API (and webhook) shape of an action: a completed action has no `date` key; an undated one
 * (asap, waiting) answers `date` '' and `exact_time` is 0 when the action has no time (OnePageCRM
 * types them a string and an integer; the columns stay NULL).
 */
export function toActionDto(row: ActionRow): ActionDto {
  const dto: ActionDto = {
    id: row.id,
    assignee_id: row.assignee_id,
    contact_id: row.contact_id,
    text: row.text,
    status: row.status,
    date: plainDateOf(row.date) ?? '',
    exact_time: row.exact_time === null ? 0 : Number(row.exact_time),
    position: row.position,
    done: row.done,
    done_at: plainDateOf(row.done_at) ?? '',
    externally_controlled: row.externally_controlled,
    created_at: isoOf(row.created_at),
    modified_at: isoOf(row.modified_at),
  };
  if (row.status === 'done') delete dto.date;
  return dto;
}
