/** Action status values: next actions (`asap`, `date`, `date_time`, `waiting`), queued (`queued` without a date, `queued_with_date`), `done`. */
export const ACTION_STATUSES = ['asap', 'date', 'date_time', 'waiting', 'queued', 'queued_with_date', 'done'] as const;

export type ActionStatus = (typeof ACTION_STATUSES)[number];

/** The kinds of next action, most urgent first: `asap`, then dated (`date`, `date_time`), then `waiting`. */
export const NEXT_ACTION_STATUSES: readonly ActionStatus[] = ['asap', 'date', 'date_time', 'waiting'];

/** The kinds of queued action: `queued` (without a date) and `queued_with_date`. */
export const QUEUED_ACTION_STATUSES: readonly ActionStatus[] = ['queued', 'queued_with_date'];

/** The spec's Action; a completed action has no `date` key (Events rule 4). */
export interface ActionDto {
  id: string;
  assignee_id: string;
  contact_id: string;
  text: string;
  status: ActionStatus;
  /** A day; '' when the action has none (asap, waiting); absent when completed. */
  date?: string;
  /** Unix seconds; 0 when the action has no time (OnePageCRM types it an integer; stored NULL). */
  exact_time: number;
  position: number;
  done: boolean;
  /** The day it was completed; '' while not done (never null). */
  done_at: string;
  externally_controlled: boolean;
  created_at: string;
  modified_at: string;
}

export interface ActionReply {
  action: ActionDto;
}

export interface ListActionsReply {
  actions: ActionReply[];
  total_count: number;
  page: number;
  per_page: number;
  max_page: number;
}

/**
 * The action parts of a contact wrapper, seen by one user: every next action of the contact
 * (all assignees), the user's own next action and queued actions, and the user's date
 * conflicts (queued actions dated before the user's next action).
 */
export interface ContactActionsDto {
  next_actions: ActionDto[];
  next_action: ActionDto | null;
  queued_actions: ActionDto[];
  next_action_conflicts: ActionDto[];
}
