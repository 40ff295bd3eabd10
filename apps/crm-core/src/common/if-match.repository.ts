import { ApiError, ErrorName, ifMatchHolds, parseEntityTags } from '@crm/contracts';
import { currentIfMatch } from '@crm/observability';
import { maybeOne, sql, type Db, type SqlFragment } from './sql';

/** The tables whose rows a single-record write may guard with If-Match (fixed fragments, never input). */
const VERSIONED = {
  contacts: sql`crm.contacts`,
  companies: sql`crm.companies`,
  deals: sql`crm.deals`,
  notes: sql`crm.notes`,
  calls: sql`crm.calls`,
  meetings: sql`crm.meetings`,
  actions: sql`crm.actions`,
  predefined_actions: sql`crm.predefined_actions`,
  predefined_action_groups: sql`crm.predefined_action_groups`,
  filters: sql`crm.filters`,
  relationship_types: sql`crm.relationship_types`,
} satisfies Record<string, SqlFragment>;

export type VersionedTable = keyof typeof VERSIONED;

/**
 * Optimistic concurrency (docs/decisions.md "ETags and conditional requests"): when the request
 * carries If-Match, the record's version (modified_at, ms) must be one the header names, else 409
 * conflict. Call it inside the write's transaction, right after it has locked the record (FOR
 * UPDATE; this locks it too): the version read here cannot change before the write commits. Costs nothing
 * (no query) when the request has no If-Match; `*` passes for any record that exists.
 */
export async function assertIfMatch(db: Db, table: VersionedTable, id: string): Promise<void> {
  const header = currentIfMatch();
  if (header === undefined) return;
  const tags = parseEntityTags(header);
  if (tags === '*') return;
  // FOR UPDATE: a no-op after the write's own lock, and the lock itself where the write locks later.
  const row = await maybeOne<{ modified_at: Date }>(db, sql`SELECT modified_at FROM ${VERSIONED[table]} WHERE id = ${id} FOR UPDATE`);
  // No such row: the write answers its own 404.
  if (!row || (tags && ifMatchHolds(tags, row.modified_at))) return;
  throw new ApiError(ErrorName.Conflict, 'The record has changed since the ETag in If-Match; read it again and retry');
}
