import { createHash } from 'node:crypto';
import { ApiError, IF_MATCH_OPERATIONS, MAX_ENTITY_TAGS, parseEntityTags } from '@crm/contracts';
import { recordVersionOf } from '@crm/messaging';

// The gateway's side of ETags and conditional requests (docs/decisions.md "ETags and conditional
// requests"); parsing and comparing tags live in libs/contracts (envelope/etag.ts).

/**
 * The field of `data` holding the record a route answers with, from the route's reply name:
 * `ContactReply` -> `contact`, `PredefinedActionGroupReply` -> `predefined_action_group`.
 */
export function recordKey(reply: string): string {
  return reply.replace(/Reply$/, '').replace(/[A-Z]/g, (letter, at: number) => (at > 0 ? '_' : '') + letter.toLowerCase());
}

/** The version (epoch ms) of the record `data` holds, in its `key` field or flat; 0 for anything else (lists). */
export function recordVersion(data: unknown, key: string): number {
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return 0;
  const inner = (data as Record<string, unknown>)[key];
  const record = inner !== null && typeof inner === 'object' && !Array.isArray(inner) ? inner : data;
  return recordVersionOf(record as Record<string, unknown>);
}

/**
 * The strong ETag of a reply's `data`, serialized as `dataJson` (its text, or that text's UTF-8
 * bytes: the same hash), whose record (if any) has version `version`.
 */
function entityTag(dataJson: string | Uint8Array, version: number): string {
  const hash = createHash('sha1').update(dataJson).digest('base64url').slice(0, 16);
  return `"${version.toString(36)}.${hash}"`;
}

/**
 * The JSON text of a success envelope whose `data` is already serialized as `dataJson` (the ETag
 * hashed that text): `data` is serialized once per reply, not once for the tag and again for the
 * body.
 */
export function envelopeJson(body: Record<string, unknown>, dataJson: string): string {
  return `${envelopeHead(body)}${dataJson}}`;
}

/** The text of a success envelope up to its `data`'s value (`data` is last; a `}` closes it). */
export function envelopeHead(body: Record<string, unknown>): string {
  const { data: _data, ...envelope } = body;
  const head = JSON.stringify(envelope);
  return head === '{}' ? '{"data":' : `${head.slice(0, -1)},"data":`;
}

/**
 * The If-Match header of a write, checked after authorization: 400 on a route that does not check
 * it (IF_MATCH_OPERATIONS), or when malformed or listing more than MAX_ENTITY_TAGS tags; else the
 * value to forward to crm-core (RpcHeaders.ifMatch).
 */
export function acceptIfMatch(operationId: string, value: string): string {
  if (!IF_MATCH_OPERATIONS.has(operationId))
    throw ApiError.invalid(
      { 'If-Match': 'is not supported on this route: it writes no single versioned record' },
      'If-Match is not supported here',
    );
  if (parseEntityTags(value) === null) throw malformed('If-Match');
  return value.trim();
}

/** If-None-Match of a GET (or HEAD), parsed; 400 when malformed. */
export function parseIfNoneMatch(value: string): '*' | string[] {
  const tags = parseEntityTags(value);
  if (tags === null) throw malformed('If-None-Match');
  return tags;
}

const malformed = (name: string) =>
  ApiError.invalid({ [name]: `must be * or a list of at most ${MAX_ENTITY_TAGS} entity tags ("...")` }, `Malformed ${name} header`);

/**
 * The ETag of a success reply: every GET's, and a write's whose `data` holds one record (a write
 * answering nothing, or many, gets none and is not hashed). `reply` is the route's reply name;
 * `dataJson`, `data` serialized (when the caller has it already).
 */
export function replyTag(method: string, reply: string, data: unknown, dataJson = JSON.stringify(data) ?? ''): string | undefined {
  return versionedTag(method, recordVersion(data, recordKey(reply)), dataJson);
}

/** {@link replyTag} given the record's version (from the data, or as crm-core sent it beside the data's text or bytes). */
export function versionedTag(method: string, version: number, dataJson: string | Uint8Array): string | undefined {
  if (method === 'GET' || method === 'HEAD' || version > 0) return entityTag(dataJson, version);
  return undefined;
}
