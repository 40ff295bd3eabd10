import { isId } from '@crm/common';
import { ApiError, parseContract } from '@crm/contracts';
import type { ClassConstructor } from 'class-transformer';
import type { EntityManager } from 'typeorm';

/** Today's date in UTC, `YYYY-MM-DD`. */
export function todayUtc(now: Date = new Date()): string {
  return now.toISOString().slice(0, 10);
}

/** `date` columns come back as 'YYYY-MM-DD' strings (libs/database type parser) or Date. */
export function plainDateOf(value: string | Date | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return value.slice(0, 10);
  return value.toISOString().slice(0, 10);
}

export function isoOf(value: string | Date): string {
  return new Date(value).toISOString();
}

/** "First Last", trimmed; what `author`, `owner.name` and `contact_name` show. */
export function fullName(first: string | null | undefined, last: string | null | undefined): string {
  return `${first ?? ''} ${last ?? ''}`.trim();
}

export function round2(value: number): number {
  return Math.round(value * 100) / 100;
}

/** A 24-hex id in lower case, or null when the value cannot name a record. */
export function normalizeId(value: string | null | undefined): string | null {
  if (typeof value !== 'string') return null;
  const id = value.trim().toLowerCase();
  return isId(id) ? id : null;
}

export interface ContactRef {
  id: string;
  status_id: string;
  owner_id: string;
  first_name: string;
  last_name: string;
  company_name: string;
  company_id: string | null;
  photo_url: string;
}

const CONTACT_REF_COLUMNS = 'id, status_id, owner_id, first_name, last_name, company_name, company_id, photo_url';

/**
 * A non-deleted contact of the account, or 404. `lock` takes the contact row lock
 * (`FOR NO KEY UPDATE`): writes that keep per-contact invariants (one next action per assignee,
 * queue positions) serialize on it, while foreign-key checks of concurrent inserts still pass.
 */
export async function findContact(
  m: EntityManager,
  accountId: string,
  contactId: string,
  options: { lock?: boolean; field?: string } = {},
): Promise<ContactRef> {
  const id = normalizeId(contactId);
  const rows: ContactRef[] = id
    ? await m.query(
        `SELECT ${CONTACT_REF_COLUMNS} FROM crm.contacts WHERE id = $1 AND account_id = $2 AND deleted_at IS NULL${options.lock ? ' FOR NO KEY UPDATE' : ''}`,
        [id, accountId],
      )
    : [];
  if (rows.length === 0)
    throw ApiError.notFound(options.field ? `No contact of the account has this ${options.field}` : 'Contact not found');
  return rows[0];
}

/** Non-deleted contacts of the account by id; 404 naming `field` when one is unknown. */
export async function findContacts(m: EntityManager, accountId: string, ids: readonly string[], field: string): Promise<ContactRef[]> {
  const normalized = [...new Set(ids.map((id) => normalizeId(id)))];
  if (normalized.some((id) => id === null)) throw ApiError.notFound(`${field} names a contact that does not exist`);
  if (normalized.length === 0) return [];
  const rows: ContactRef[] = await m.query(
    `SELECT ${CONTACT_REF_COLUMNS} FROM crm.contacts WHERE id = ANY($1::varchar[]) AND account_id = $2 AND deleted_at IS NULL`,
    [normalized, accountId],
  );
  if (rows.length !== normalized.length) throw ApiError.notFound(`${field} names a contact that does not exist`);
  return rows;
}

export interface UserRef {
  id: string;
  first_name: string;
  last_name: string;
  email: string;
}

/** Users of the account by id; 404 naming `field` when one is unknown. */
export async function findUsers(m: EntityManager, accountId: string, ids: readonly string[], field: string): Promise<Map<string, UserRef>> {
  const normalized = [...new Set(ids.map((id) => normalizeId(id)))];
  if (normalized.some((id) => id === null)) throw ApiError.notFound(`${field} names a user that does not exist`);
  const out = new Map<string, UserRef>();
  if (normalized.length === 0) return out;
  const rows: UserRef[] = await m.query(
    'SELECT id, first_name, last_name, email FROM crm.users WHERE id = ANY($1::varchar[]) AND account_id = $2',
    [normalized, accountId],
  );
  if (rows.length !== normalized.length) throw ApiError.notFound(`${field} names a user that does not exist`);
  for (const row of rows) out.set(row.id, row);
  return out;
}

/** Author names by user id, for records listing who wrote them. */
export async function userNames(m: EntityManager, ids: readonly string[]): Promise<Map<string, string>> {
  const unique = [...new Set(ids)];
  const out = new Map<string, string>();
  if (unique.length === 0) return out;
  const rows: UserRef[] = await m.query('SELECT id, first_name, last_name, email FROM crm.users WHERE id = ANY($1::varchar[])', [unique]);
  for (const row of rows) out.set(row.id, fullName(row.first_name, row.last_name));
  return out;
}

/**
 * parseContract for the records: first refuses text holding NUL characters (PostgreSQL cannot
 * store U+0000 in text; it would fail the query), 400 keyed by the top-level field.
 */
export function parseRecord<T extends object>(cls: ClassConstructor<T>, payload: unknown): T {
  if (payload !== null && typeof payload === 'object' && !Array.isArray(payload)) {
    const field = nulField(payload);
    if (field !== null)
      throw ApiError.invalid({
        [field]: `${field} must not contain NUL characters`,
      });
  }
  return parseContract(cls, payload);
}

/** The top-level field under which a string holds U+0000 (iteratively; input depth is bounded by parseContract anyway). */
function nulField(input: object): string | null {
  const stack: Array<[unknown, string, number]> = Object.entries(input).map(([k, v]) => [v, k, 0]);
  while (stack.length > 0) {
    const [value, field, depth] = stack.pop()!;
    if (typeof value === 'string') {
      if (value.includes('\u0000')) return field;
    } else if (value !== null && typeof value === 'object' && depth < 40) {
      for (const [k, v] of Object.entries(value)) {
        if (k.includes('\u0000')) return field;
        stack.push([v, field, depth + 1]);
      }
    }
  }
  return null;
}
