import { MAX_EVENT_DATA_BYTES, type TruncatedEventData } from '@crm/contracts';

/** The `data` an event is written with, serialized once, and the size of the original when it had to be reduced. */
export interface BoundedEventData {
  /** JSON of `data` (or of its reduced form), at most `maxBytes` bytes. */
  json: string;
  /** Bytes of the original `data` when it was reduced; null when it is written whole. */
  truncatedFrom: number | null;
}

/**
 * Bounds the `data` of an event (decisions.md "Event pipeline and fan-out bounds"): whole when
 * its JSON fits in `maxBytes`; else the record under its entity key without the sibling keys
 * (a contact event's `next_actions`, `queued_actions`...) and `truncated: true`; else only the
 * record's id under the entity key and `truncated: true`. The webhook body keeps its five keys:
 * the marker lives inside `data`.
 */
export function boundEventData(
  type: string,
  recordId: string,
  data: Record<string, unknown>,
  maxBytes: number = MAX_EVENT_DATA_BYTES,
): BoundedEventData {
  const json = JSON.stringify(data);
  const bytes = Buffer.byteLength(json);
  if (bytes <= maxBytes) return { json, truncatedFrom: null };
  const record = data[type];
  if (record !== null && typeof record === 'object' && Object.keys(data).length > 1) {
    const withoutSiblings = JSON.stringify({ [type]: record, truncated: true } satisfies TruncatedEventData);
    if (Buffer.byteLength(withoutSiblings) <= maxBytes) return { json: withoutSiblings, truncatedFrom: bytes };
  }
  return { json: JSON.stringify({ [type]: { id: recordId }, truncated: true } satisfies TruncatedEventData), truncatedFrom: bytes };
}
