/**
 * ETags and conditional requests (docs/decisions.md "ETags and conditional requests"). An ETag
 * (made by the gateway, apps/api-gateway/src/api/etag.ts) is
 * `"<version>.<hash>"`: the version is the `modified_at` of the record a reply's `data` holds, in
 * epoch milliseconds written in base36 (`0` for lists and records without one), and the hash a
 * short SHA-1 of the serialized `data`. The envelope (`timestamp`, summary blocks) takes no part:
 * the tag changes exactly when `data` does. `If-Match` compares the version alone, in crm-core,
 * against the locked row; `If-None-Match` compares whole tags, weakly.
 */

/** At most this many entity tags in one If-Match / If-None-Match header; more is 400. */
export const MAX_ENTITY_TAGS = 20;

/**
 * The entity tags of an If-Match / If-None-Match header: `'*'`, or the opaque tags (quotes and a
 * weak `W/` prefix removed); null when the header is malformed or lists more than MAX_ENTITY_TAGS.
 */
export function parseEntityTags(header: string): '*' | string[] | null {
  const value = header.trim();
  if (value === '*') return '*';
  const tags: string[] = [];
  for (const part of value.split(',')) {
    const item = part.trim();
    if (item === '') continue;
    const quoted = item.startsWith('W/') ? item.slice(2) : item;
    if (quoted.length < 2 || !quoted.startsWith('"') || !quoted.endsWith('"')) return null;
    const opaque = quoted.slice(1, -1);
    if (opaque.includes('"')) return null;
    tags.push(opaque);
    if (tags.length > MAX_ENTITY_TAGS) return null;
  }
  return tags.length > 0 ? tags : null;
}

/** If-None-Match's weak comparison: does the header (parsed) name `etag` (as sent, quoted)? `*` names any. */
export function noneMatchHolds(tags: '*' | string[], etag: string): boolean {
  if (tags === '*') return true;
  const opaque = etag.startsWith('W/') ? etag.slice(3, -1) : etag.slice(1, -1);
  return tags.includes(opaque);
}

/** The version (epoch ms) an opaque tag of ours names, or undefined when it is not one of ours. */
export function tagVersion(opaque: string): number | undefined {
  const dot = opaque.indexOf('.');
  const version = dot < 0 ? opaque : opaque.slice(0, dot);
  if (!/^[0-9a-z]{1,11}$/.test(version)) return undefined;
  return parseInt(version, 36);
}

/**
 * Whether a record whose version is `modifiedAt` satisfies If-Match (parsed): `*` for any existing
 * record, else one of the tags must carry its version (milliseconds).
 */
export function ifMatchHolds(tags: '*' | string[], modifiedAt: Date | string | number): boolean {
  if (tags === '*') return true;
  const ms = new Date(modifiedAt).getTime();
  return tags.some((tag) => tagVersion(tag) === ms);
}

/**
 * The writes that check If-Match: each locks the record its path names and compares its version
 * (crm-core `assertIfMatch`). If-Match on any other write is 400 rather than silently ignored.
 */
export const IF_MATCH_OPERATIONS: ReadonlySet<string> = new Set([
  'updateContact',
  'patchContact',
  'deleteContact',
  'changeContactStatus',
  'assignContactTag',
  'unassignContactTag',
  'closeContactSalesCycle',
  'forceCloseContactSalesCycle',
  'reopenContactSalesCycle',
  'changeContactOwner',
  'starContact',
  'unstarContact',
  'splitContact',
  'updateCompany',
  'patchCompany',
  'setCompanySyncedStatus',
  'removeCompanySyncedStatus',
  'updateDeal',
  'patchDeal',
  'deleteDeal',
  'updateNote',
  'deleteNote',
  'updateCall',
  'deleteCall',
  'updateMeeting',
  'deleteMeeting',
  'updateAction',
  'deleteAction',
  'markActionAsDone',
  'undoActionCompletion',
  'swapAction',
  'unlinkAction',
  'unassignAction',
  'promoteAction',
  'updatePredefinedAction',
  'deletePredefinedAction',
  'updatePredefinedActionGroup',
  'deletePredefinedActionGroup',
  'updateFilter',
  'patchFilter',
  'updateRelationshipType',
]);
