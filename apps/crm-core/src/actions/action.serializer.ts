import type { ActionDto, ActionStatus } from '@crm/contracts';

/** Columns of crm.actions that {@link toActionDto} reads (prefix with the table alias). */
export const ACTION_COLUMNS = [
  'id',
  'assignee_id',
  'contact_id',
  'text',
  'status',
  'date',
  'exact_time',
  'position',
  'done',
  'done_at',
  'externally_controlled',
  'created_at',
  'modified_at',
] as const;

export interface ActionRow {
  id: string;
  assignee_id: string;
  contact_id: string;
  text: string;
  status: ActionStatus;
  /** `date` columns come back from pg as 'YYYY-MM-DD' strings (the pool sets the type parser) or Date. */
  date: string | Date | null;
  exact_time: string | number | null;
  position: number;
  done: boolean;
  done_at: string | Date | null;
  externally_controlled: boolean;
  created_at: Date | string;
  modified_at: Date | string;
}

export function plainDate(value: string | Date | null): string | null {
  if (value === null) return null;
  if (typeof value === 'string') return value.slice(0, 10);
  return value.toISOString().slice(0, 10);
}

/** The API (and webhook) shape of an action: a completed action has no `date` key. */
export function toActionDto(row: ActionRow): ActionDto {
  const dto: ActionDto = {
    id: row.id,
    assignee_id: row.assignee_id,
    contact_id: row.contact_id,
    text: row.text,
    status: row.status,
    date: plainDate(row.date),
    exact_time: row.exact_time === null ? null : Number(row.exact_time),
    position: row.position,
    done: row.done,
    done_at: plainDate(row.done_at),
    externally_controlled: row.externally_controlled,
    created_at: new Date(row.created_at).toISOString(),
    modified_at: new Date(row.modified_at).toISOString(),
  };
  if (row.status === 'done') delete dto.date;
  return dto;
}
