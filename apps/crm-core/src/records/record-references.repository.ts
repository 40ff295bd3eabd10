import { ApiError } from '@crm/contracts';
import { execute, many, sql, type Db } from '../common/sql';
import { normalizeId } from './record-common';

/** What records show of their contact (crm.contacts). */
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

/** What records show of a user (crm.users). */
export interface UserRef {
  id: string;
  first_name: string;
  last_name: string;
  email: string;
}

/** The ContactRef columns of crm.contacts aliased `c`. */
export const CONTACT_REF_COLUMNS = sql`c.id, c.status_id, c.owner_id, c.first_name, c.last_name, c.company_name, c.company_id, c.photo_url`;

/**
 * A non-deleted contact of the account, or 404. `lock` takes the contact row lock
 * (`FOR NO KEY UPDATE`): writes that keep per-contact invariants (one next action per assignee,
 * queue positions) serialize on it, while foreign-key checks of concurrent inserts still pass.
 */
export async function findContact(
  db: Db,
  accountId: string,
  contactId: string,
  options: { lock?: boolean; field?: string } = {},
): Promise<ContactRef> {
  const id = normalizeId(contactId);
  const lock = options.lock ? sql` FOR NO KEY UPDATE` : sql.empty;
  const rows = id
    ? await many<ContactRef>(
        db,
        sql`SELECT ${CONTACT_REF_COLUMNS} FROM crm.contacts c WHERE c.id = ${id} AND c.account_id = ${accountId} AND c.deleted_at IS NULL${lock}`,
        { prepare: true },
      )
    : [];
  if (rows.length === 0)
    throw ApiError.notFound(options.field ? `No contact of the account has this ${options.field}` : 'Contact not found');
  return rows[0];
}

/** The id of a company of the account, or 404 naming `field`. */
export async function findCompanyId(db: Db, accountId: string, companyId: string, field: string): Promise<string> {
  const id = normalizeId(companyId);
  const rows = id
    ? await many<{ id: string }>(db, sql`SELECT id FROM crm.companies WHERE id = ${id} AND account_id = ${accountId}`, { prepare: true })
    : [];
  if (rows.length === 0) throw ApiError.notFound(`No company of the account has this ${field}`);
  return rows[0].id;
}

/** Non-deleted contacts of the account by id; 404 naming `field` when one is unknown. */
export async function findContacts(db: Db, accountId: string, ids: readonly string[], field: string): Promise<ContactRef[]> {
  const normalized = [...new Set(ids.map((id) => normalizeId(id)))];
  if (normalized.some((id) => id === null)) throw ApiError.notFound(`${field} names a contact that does not exist`);
  if (normalized.length === 0) return [];
  const rows = await many<ContactRef>(
    db,
    sql`SELECT ${CONTACT_REF_COLUMNS} FROM crm.contacts c WHERE c.id = ANY(${normalized}::varchar[]) AND c.account_id = ${accountId} AND c.deleted_at IS NULL`,
  );
  if (rows.length !== normalized.length) throw ApiError.notFound(`${field} names a contact that does not exist`);
  return rows;
}

/** Users of the account by id; 404 naming `field` when one is unknown. */
export async function findUsers(db: Db, accountId: string, ids: readonly string[], field: string): Promise<Map<string, UserRef>> {
  const normalized = [...new Set(ids.map((id) => normalizeId(id)))];
  if (normalized.some((id) => id === null)) throw ApiError.notFound(`${field} names a user that does not exist`);
  const out = new Map<string, UserRef>();
  if (normalized.length === 0) return out;
  const rows = await many<UserRef>(
    db,
    sql`SELECT id, first_name, last_name, email FROM crm.users WHERE id = ANY(${normalized}::varchar[]) AND account_id = ${accountId}`,
  );
  if (rows.length !== normalized.length) throw ApiError.notFound(`${field} names a user that does not exist`);
  for (const row of rows) out.set(row.id, row);
  return out;
}

/** The one user of the account `id` names (404 naming `field` otherwise). */
export async function findUser(db: Db, accountId: string, id: string, field: string): Promise<UserRef> {
  return [...(await findUsers(db, accountId, [id], field)).values()][0];
}

/** The contact's last activity moves to now when a note, call or meeting is logged. */
export async function touchLastActivity(db: Db, contactId: string): Promise<void> {
  await execute(
    db,
    sql`UPDATE crm.contacts SET last_activity_at = now() WHERE id = ${contactId} AND (last_activity_at IS NULL OR last_activity_at < now())`,
    { prepare: true },
  );
}
