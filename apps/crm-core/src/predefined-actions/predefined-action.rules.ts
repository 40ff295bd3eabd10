import { ApiError, type PredefinedActionDto, type UpdatePredefinedActionRequest } from '@crm/contracts';

/**
 * A template's date rule (decisions.md "Predefined actions"): `date_time` needs a time and only it
 * may have one; a `waiting` action has no date, so no days_after.
 */
export function checkPredefinedAction(template: { status: PredefinedActionDto['status']; days_after: number; time?: string | null }): void {
  if (template.status === 'date_time' && !template.time) throw ApiError.invalid({ time: 'is required for status date_time' });
  if (template.status !== 'date_time' && template.time) throw ApiError.invalid({ time: 'is only allowed with status date_time' });
  if (template.status === 'waiting' && template.days_after !== 0) throw ApiError.invalid({ days_after: 'a waiting action has no date' });
}

/** The member ids of a new group, in the order given (ids are case-insensitive); each once. */
export function groupMemberIds(sent: readonly string[]): string[] {
  const ids = sent.map((id) => id.toLowerCase());
  if (new Set(ids).size !== ids.length) throw ApiError.invalid({ predefined_action_ids: 'each predefined action may appear only once' });
  return ids;
}

/** Every member must be an ungrouped template of the account: 404 naming the unknown, 400 naming the grouped. */
export function checkGroupable(ids: readonly string[], found: ReadonlyArray<{ id: string; group_id: string | null }>): void {
  const byId = new Map(found.map((r) => [r.id, r]));
  const missing = ids.filter((id) => !byId.has(id));
  if (missing.length > 0) throw ApiError.notFound(`Predefined action not found: ${missing.join(', ')}`);
  const grouped = found.filter((r) => r.group_id);
  if (grouped.length > 0) throw ApiError.invalid({ predefined_action_ids: `already in a group: ${grouped.map((r) => r.id).join(', ')}` });
}

/** A group left with fewer than two members is dissolved. */
export function groupDissolves(remainingMembers: number): boolean {
  return remainingMembers < 2;
}

type Template = Pick<PredefinedActionDto, 'text' | 'status' | 'days_after' | 'time'>;

/**
 * The template a PUT leads to: absent fields take their create defaults (`date`, 0 days, no
 * time); with `partial=true` they stay, except a time that the new status cannot have.
 */
export function updatedTemplate(current: Template, request: Omit<UpdatePredefinedActionRequest, 'predefined_action_id'>): Template {
  const daysAfter = request.days ?? request.days_after;
  if (request.partial !== true)
    return {
      text: request.text ?? current.text,
      status: request.status ?? 'date',
      days_after: daysAfter ?? 0,
      time: request.time ?? null,
    };
  const status = request.status ?? current.status;
  const time = request.time !== undefined ? request.time : status === 'date_time' ? current.time : null;
  return { text: request.text ?? current.text, status, days_after: daysAfter ?? current.days_after, time };
}

/** Members of the group being changed count as ungrouped: they may stay. */
export function regroupable<T extends { group_id: string | null }>(groupId: string, found: readonly T[]): T[] {
  return found.map((row) => (row.group_id === groupId ? { ...row, group_id: null } : row));
}
