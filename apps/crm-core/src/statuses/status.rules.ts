import { DEFAULT_STATUS_COLOR } from '@crm/contracts';

/** The editable values of a status. */
export interface StatusValues {
  status: string;
  text: string;
  description: string;
  color: string;
}

/** Changes to a status: undefined keeps a value, null resets it to its default. */
export interface StatusChanges {
  status?: string;
  text?: string | null;
  description?: string | null;
  color?: string | null;
}

/** A status made or renamed without `text`: the first two letters (or digits) of its name, in capitals. */
export function defaultStatusText(name: string): string {
  return (name.replace(/[^\p{L}\p{N}]/gu, '').slice(0, 2) || name.slice(0, 2)).toUpperCase();
}

/** A new status: absent text, description and color take their defaults. */
export function newStatusValues(request: {
  status: string;
  text?: string | null;
  description?: string | null;
  color?: string | null;
}): StatusValues {
  return {
    status: request.status,
    text: request.text ?? defaultStatusText(request.status),
    description: request.description ?? '',
    color: request.color ?? DEFAULT_STATUS_COLOR,
  };
}

/** PUT without partial: what is not sent goes back to its default (the name stays when absent). */
export function replacementChanges(sent: StatusChanges): StatusChanges {
  return { status: sent.status, text: sent.text ?? null, description: sent.description ?? null, color: sent.color ?? null };
}

/** The values after `changes`; a reset text follows the (new) name. */
export function changedStatusValues(current: StatusValues, changes: StatusChanges): StatusValues {
  const status = changes.status ?? current.status;
  return {
    status,
    text: changes.text === undefined ? current.text : (changes.text ?? defaultStatusText(status)),
    description: changes.description === undefined ? current.description : (changes.description ?? ''),
    color: changes.color === undefined ? current.color : (changes.color ?? DEFAULT_STATUS_COLOR),
  };
}

export function statusValuesDiffer(a: StatusValues, b: StatusValues): boolean {
  return a.status !== b.status || a.text !== b.text || a.description !== b.description || a.color !== b.color;
}
