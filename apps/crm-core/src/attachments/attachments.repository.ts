import { Injectable } from '@nestjs/common';
import { newId } from '@crm/common';
import type { AttachmentReferenceType } from '@crm/contracts';
import { execute, many, maybeOne, one, sql, type Db, type SqlFragment } from '../common/sql';
import type { AttachmentJson } from '../records/attachment.view';

/** The tables of the records a file can be attached to (names chosen in code). */
const RECORD_TABLES: Readonly<Record<AttachmentReferenceType, string>> = {
  deal: 'crm.deals',
  note: 'crm.notes',
  call: 'crm.calls',
  meeting: 'crm.meetings',
};

const ATTACHMENT_COLUMNS = sql`a.id, a.filename, a.custom_filename, a.pinned, extract(epoch from a.pinned_at)::bigint AS pinned_at, a.size,
  a.storage_provider, a.url, a.url_expires_at, a.thumbnail_url, a.storage_key, a.thumbnail_key`;

export interface AttachmentRow extends AttachmentJson {
  contact_id: string;
}

export interface NewAttachment {
  accountId: string;
  type: AttachmentReferenceType;
  recordId: string;
  contactId: string;
  filename: string;
  size: number;
  storageProvider: string;
  url: string;
  storageKey: string | null;
  thumbnailKey: string | null;
  contentType: string | null;
}

export interface NewUploadForm {
  key: string;
  accountId: string;
  contactId: string;
  maxBytes: number;
  expiresInSeconds: number;
}

export interface UploadFormRow {
  storage_key: string;
  contact_id: string;
  max_bytes: number;
  open: boolean;
  registered: boolean;
}

/** Every SQL statement of stored files: attachments' rows, pinned lists, photos and logos, the purge queue. */
@Injectable()
export class AttachmentsRepository {
  /** A deal, note, call or meeting of the account with its (non-deleted) contact, or undefined. */
  findRecord(
    db: Db,
    accountId: string,
    type: AttachmentReferenceType,
    id: string,
  ): Promise<{ id: string; contact_id: string } | undefined> {
    return maybeOne(
      db,
      sql`SELECT r.id, r.contact_id FROM ${sql.raw(RECORD_TABLES[type])} r JOIN crm.contacts c ON c.id = r.contact_id AND c.deleted_at IS NULL
          WHERE r.id = ${id} AND r.account_id = ${accountId}`,
    );
  }

  async keyTaken(db: Db, key: string): Promise<boolean> {
    return (await many(db, sql`SELECT 1 FROM crm.attachments WHERE storage_key = ${key}`)).length > 0;
  }

  /**
   * Bytes the account uses: its stored attachments, and what its upload forms reserve until they
   * are purged (an upload not registered yet counts; decisions.md "Upload forms").
   */
  async storedBytes(db: Db, accountId: string): Promise<number> {
    const row = await one<{ total: string }>(
      db,
      sql`SELECT (SELECT coalesce(sum(size), 0) FROM crm.attachments WHERE account_id = ${accountId} AND storage_key IS NOT NULL)
            + (SELECT coalesce(sum(max_bytes), 0) FROM crm.upload_forms WHERE account_id = ${accountId}) AS total`,
    );
    return Number(row.total);
  }

  /** Serializes the account's quota decisions (form reservations) until the transaction ends. */
  async lockQuota(db: Db, accountId: string): Promise<void> {
    await execute(db, sql`SELECT pg_advisory_xact_lock(hashtext('crm.upload_quota'), hashtext(${accountId}))`);
  }

  async insertUploadForm(db: Db, form: NewUploadForm): Promise<void> {
    await execute(
      db,
      sql`INSERT INTO crm.upload_forms (storage_key, account_id, contact_id, max_bytes, expires_at)
          VALUES (${form.key}, ${form.accountId}, ${form.contactId}, ${form.maxBytes}, now() + make_interval(secs => ${form.expiresInSeconds}::int))`,
    );
  }

  /** The account's upload form of this key, locked for the transaction; undefined for any other key. */
  uploadForm(db: Db, accountId: string, key: string): Promise<UploadFormRow | undefined> {
    return maybeOne(
      db,
      sql`SELECT storage_key, contact_id, max_bytes::int AS max_bytes, expires_at > now() AS open, registered_at IS NOT NULL AS registered
          FROM crm.upload_forms WHERE storage_key = ${key} AND account_id = ${accountId} FOR UPDATE`,
    );
  }

  /** The form's file was registered (copied to the attachment's key): its key is queued for removal, the row kept until it expires. */
  async uploadFormRegistered(db: Db, accountId: string, key: string): Promise<void> {
    await execute(db, sql`UPDATE crm.upload_forms SET registered_at = now() WHERE storage_key = ${key}`);
    await this.queueKey(db, accountId, key);
  }

  /** Forms expired more than `graceSeconds` ago (an upload begun before the expiry has ended), locked for this transaction. */
  expiredUploadForms(db: Db, graceSeconds: number, limit: number): Promise<Array<{ storage_key: string }>> {
    return many(
      db,
      sql`SELECT storage_key FROM crm.upload_forms WHERE expires_at < now() - make_interval(secs => ${graceSeconds}::int)
          ORDER BY expires_at LIMIT ${limit} FOR UPDATE SKIP LOCKED`,
    );
  }

  async removeUploadForms(db: Db, keys: readonly string[]): Promise<void> {
    if (keys.length > 0) await execute(db, sql`DELETE FROM crm.upload_forms WHERE storage_key = ANY(${keys}::text[])`);
  }

  async insert(db: Db, a: NewAttachment): Promise<string> {
    const id = newId();
    await execute(
      db,
      sql`INSERT INTO crm.attachments (id, account_id, record_type, record_id, contact_id, filename, size, storage_provider, url,
            storage_key, thumbnail_key, content_type, position)
          VALUES (${id}, ${a.accountId}, ${a.type}, ${a.recordId}, ${a.contactId}, ${a.filename}, ${a.size}, ${a.storageProvider}, ${a.url},
            ${a.storageKey}, ${a.thumbnailKey}, ${a.contentType},
            (SELECT coalesce(max(position) + 1, 0) FROM crm.attachments WHERE record_id = ${a.recordId}))`,
    );
    return id;
  }

  /** An attachment of the account whose contact is not deleted. */
  find(db: Db, accountId: string, id: string): Promise<AttachmentRow | undefined> {
    return maybeOne(
      db,
      sql`SELECT ${ATTACHMENT_COLUMNS}, a.contact_id FROM crm.attachments a JOIN crm.contacts c ON c.id = a.contact_id AND c.deleted_at IS NULL
          WHERE a.id = ${id} AND a.account_id = ${accountId}`,
    );
  }

  async rename(db: Db, accountId: string, id: string, customFilename: string): Promise<void> {
    await execute(
      db,
      sql`UPDATE crm.attachments SET custom_filename = ${customFilename}, modified_at = now() WHERE id = ${id} AND account_id = ${accountId}`,
    );
  }

  async setPinned(db: Db, accountId: string, id: string, pinned: boolean): Promise<void> {
    await execute(
      db,
      sql`UPDATE crm.attachments SET pinned = ${pinned}, pinned_at = CASE WHEN ${pinned}::boolean THEN coalesce(pinned_at, now()) END, modified_at = now()
          WHERE id = ${id} AND account_id = ${accountId}`,
    );
  }

  /** Deletes the row; the trigger queues its bytes in crm.storage_purges. */
  async delete(db: Db, accountId: string, id: string): Promise<boolean> {
    return (await execute(db, sql`DELETE FROM crm.attachments WHERE id = ${id} AND account_id = ${accountId}`)) > 0;
  }

  /** Pinned attachments of some contacts, most recently pinned first, one page, with the total. */
  async pinnedPage(
    db: Db,
    accountId: string,
    owner: { contactId: string } | { companyId: string },
    page: number,
    perPage: number,
  ): Promise<{ total: number; rows: AttachmentRow[] }> {
    const contacts =
      'contactId' in owner
        ? sql`a.contact_id = ${owner.contactId}`
        : sql`a.contact_id IN (SELECT id FROM crm.contacts WHERE account_id = ${accountId} AND company_id = ${owner.companyId} AND deleted_at IS NULL)`;
    const where = sql`a.account_id = ${accountId} AND a.pinned AND ${contacts}`;
    const [{ total }] = await many<{ total: string }>(db, sql`SELECT count(*) AS total FROM crm.attachments a WHERE ${where}`);
    const rows = await many<AttachmentRow>(
      db,
      sql`SELECT ${ATTACHMENT_COLUMNS}, a.contact_id FROM crm.attachments a WHERE ${where}
          ORDER BY a.pinned_at DESC, a.id DESC LIMIT ${perPage} OFFSET ${(page - 1) * perPage}`,
    );
    return { total: Number(total), rows };
  }

  /** Sets (or clears) a contact's photo; the previous photo's bytes are queued for removal. */
  async setContactPhoto(db: Db, accountId: string, contactId: string, key: string | null, url: string): Promise<void> {
    await this.queuePurge(
      db,
      accountId,
      sql`SELECT photo_key FROM crm.contacts WHERE id = ${contactId} AND account_id = ${accountId} FOR UPDATE`,
    );
    await execute(
      db,
      sql`UPDATE crm.contacts SET photo_key = ${key}, photo_url = ${url}, modified_at = now() WHERE id = ${contactId} AND account_id = ${accountId}`,
    );
  }

  /** Sets (or clears) a company's logo (`photo_url`; the data-URI `image` is cleared); the previous logo is queued for removal. */
  async setCompanyLogo(db: Db, accountId: string, companyId: string, key: string | null, url: string): Promise<void> {
    await this.queuePurge(
      db,
      accountId,
      sql`SELECT logo_key FROM crm.companies WHERE id = ${companyId} AND account_id = ${accountId} FOR UPDATE`,
    );
    await execute(
      db,
      sql`UPDATE crm.companies SET logo_key = ${key}, photo_url = ${url}, image = '', modified_at = now() WHERE id = ${companyId} AND account_id = ${accountId}`,
    );
  }

  /** Keys to remove now: locked for this transaction (replicas skip them), oldest first. */
  duePurges(db: Db, limit: number): Promise<Array<{ id: string; storage_key: string }>> {
    return many(db, sql`SELECT id, storage_key FROM crm.storage_purges ORDER BY id LIMIT ${limit} FOR UPDATE SKIP LOCKED`);
  }

  async purged(db: Db, ids: readonly string[]): Promise<void> {
    if (ids.length > 0) await execute(db, sql`DELETE FROM crm.storage_purges WHERE id = ANY(${ids}::bigint[])`);
  }

  /** Queues a key the caller no longer references (a raw upload replaced by its processed copy). */
  async queueKey(db: Db, accountId: string, key: string): Promise<void> {
    await execute(db, sql`INSERT INTO crm.storage_purges (account_id, storage_key) VALUES (${accountId}, ${key})`);
  }

  private async queuePurge(db: Db, accountId: string, current: SqlFragment): Promise<void> {
    const rows = await many<Record<string, string | null>>(db, current);
    const key = rows.length > 0 ? Object.values(rows[0])[0] : null;
    if (key) await this.queueKey(db, accountId, key);
  }
}
