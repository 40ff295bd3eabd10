import { ApiError, DEFAULT_STATUS_COLOR, STATUS_LIMITS, STATUS_READ_ONLY_MESSAGE, STATUS_TEXT_MESSAGE } from '@crm/contracts';

/** The editable values of a status (its type key `status` is assigned once and never changes). */
export interface StatusValues {
  text: string;
  description: string;
  color: string;
}

/** Changes to a status: undefined keeps a value, null resets it to its default. */
export interface StatusChanges {
  text?: string;
  description?: string | null;
  color?: string | null;
}

/** The type key of the account's `n`-th custom status. */
export function customStatusKey(n: number): string {
  return `custom${n}`;
}

/** A new status: absent description and color take their defaults. */
export function newStatusValues(request: { text: string; description?: string | null; color?: string | null }): StatusValues {
  assertNewText(request.text);
  return { text: request.text, description: request.description ?? '', color: request.color ?? DEFAULT_STATUS_COLOR };
}

/** PUT without partial: what is not sent goes back to its default (the name stays when absent). */
export function replacementChanges(sent: StatusChanges): StatusChanges {
  return { text: sent.text, description: sent.description ?? null, color: sent.color ?? null };
}

/**
 * A write may repeat the status's own type key (a client sending back what it read); any other
 * value is 400 naming `status`.
 */
export function assertSameKey(currentKey: string, sent: string | undefined): void {
  if (sent !== undefined && sent !== currentKey) throw ApiError.invalid({ status: STATUS_READ_ONLY_MESSAGE });
}

/** The values after `changes`; a changed name is held to OnePageCRM's length, an unchanged one kept as stored. */
export function changedStatusValues(current: StatusValues, changes: StatusChanges): StatusValues {
  const text = changes.text ?? current.text;
  if (text !== current.text) assertNewText(text);
  return {
    text,
    description: changes.description === undefined ? current.description : (changes.description ?? ''),
    color: changes.color === undefined ? current.color : (changes.color ?? DEFAULT_STATUS_COLOR),
  };
}

export function statusValuesDiffer(a: StatusValues, b: StatusValues): boolean {
  return a.text !== b.text || a.description !== b.description || a.color !== b.color;
}

function assertNewText(text: string): void {
  if ([...text].length > STATUS_LIMITS.newText) throw ApiError.invalid({ text: STATUS_TEXT_MESSAGE });
}
