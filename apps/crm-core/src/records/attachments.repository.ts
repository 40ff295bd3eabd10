import { newId } from '@crm/common';
import type { AttachmentInput } from '@crm/contracts';
import { execute, many, sql, type Db, type SqlFragment } from '../common/sql';

export type AttachmentRecordType = 'deal' | 'note' | 'call' | 'meeting';

/**
 * A SELECT-list expression (text): the attachments of the record whose id is `idColumn` (a column
 * name chosen in code), as a JSON array. Text, so read models can splice it with sql.raw.
 */
export function attachmentsJson(idColumn: string): string {
  return `(SELECT coalesce(json_agg(json_build_object('id', t.id, 'filename', t.filename, 'custom_filename', t.custom_filename, 'pinned', t.pinned,
            'pinned_at', extract(epoch from t.pinned_at)::bigint, 'size', t.size, 'storage_provider', t.storage_provider, 'url', t.url,
            'url_expires_at', t.url_expires_at, 'thumbnail_url', t.thumbnail_url, 'storage_key', t.storage_key, 'thumbnail_key', t.thumbnail_key)
            ORDER BY t.position, t.id), '[]'::json)
          FROM crm.attachments t WHERE t.record_id = ${idColumn})`;
}

/** {@link attachmentsJson} as a fragment. */
export function attachmentsJsonSql(idColumn: string): SqlFragment {
  return sql.raw(attachmentsJson(idColumn));
}

/**
 * Replaces a record's attachment metadata with `inputs` (in order): an input carrying the id of
 * one of the record's attachments updates it (pinned_at kept while it stays pinned; a stored
 * file only its custom name, pin and position), others are added, and the record's attachments
 * not listed are removed (a stored file's bytes with them: crm.storage_purges).
 */
export async function replaceAttachments(
  db: Db,
  accountId: string,
  type: AttachmentRecordType,
  recordId: string,
  contactId: string,
  inputs: readonly AttachmentInput[],
): Promise<void> {
  const existing = await many<{ id: string; pinned: boolean }>(
    db,
    sql`SELECT id, pinned FROM crm.attachments WHERE record_id = ${recordId} AND account_id = ${accountId}`,
  );
  const byId = new Map(existing.map((a) => [a.id, a]));
  const kept = new Set<string>();
  for (const [position, input] of inputs.entries()) {
    const id = input.id?.toLowerCase();
    const current = id ? byId.get(id) : undefined;
    const pinned = input.pinned === true;
    const filename = input.filename;
    const customFilename = input.custom_filename ?? '';
    const size = input.size ?? 0;
    const storageProvider = input.storage_provider || 'external';
    const url = input.url;
    const urlExpiresAt = input.url_expires_at ?? null;
    const thumbnailUrl = input.thumbnail_url ?? null;
    if (current && !kept.has(current.id)) {
      kept.add(current.id);
      await execute(
        db,
        // A file we store keeps its name, size, provider and links (the URLs sent back are signed copies).
        sql`UPDATE crm.attachments SET custom_filename = ${customFilename}, pinned = ${pinned},
              pinned_at = CASE WHEN ${pinned}::boolean THEN coalesce(pinned_at, now()) ELSE NULL END,
              filename = CASE WHEN storage_key IS NULL THEN ${filename} ELSE filename END,
              size = CASE WHEN storage_key IS NULL THEN ${size} ELSE size END,
              storage_provider = CASE WHEN storage_key IS NULL THEN ${storageProvider} ELSE storage_provider END,
              url = CASE WHEN storage_key IS NULL THEN ${url} ELSE url END,
              url_expires_at = CASE WHEN storage_key IS NULL THEN ${urlExpiresAt} ELSE url_expires_at END,
              thumbnail_url = CASE WHEN storage_key IS NULL THEN ${thumbnailUrl} ELSE thumbnail_url END,
              position = ${position}, contact_id = ${contactId}, modified_at = now()
            WHERE id = ${current.id}`,
      );
    } else {
      await execute(
        db,
        sql`INSERT INTO crm.attachments (id, account_id, record_type, record_id, contact_id, filename, custom_filename, pinned, pinned_at, size,
              storage_provider, url, url_expires_at, thumbnail_url, position)
            VALUES (${newId()}, ${accountId}, ${type}, ${recordId}, ${contactId}, ${filename}, ${customFilename}, ${pinned},
              CASE WHEN ${pinned}::boolean THEN now() END, ${size}, ${storageProvider}, ${url}, ${urlExpiresAt}, ${thumbnailUrl}, ${position})`,
      );
    }
  }
  const removed = existing.filter((a) => !kept.has(a.id)).map((a) => a.id);
  if (removed.length > 0) await execute(db, sql`DELETE FROM crm.attachments WHERE id = ANY(${removed}::varchar[])`);
}

export async function deleteAttachments(db: Db, recordId: string): Promise<void> {
  await execute(db, sql`DELETE FROM crm.attachments WHERE record_id = ${recordId}`);
}

/** The record's attachments follow it to another contact. */
export async function moveAttachments(db: Db, recordId: string, contactId: string): Promise<void> {
  await execute(db, sql`UPDATE crm.attachments SET contact_id = ${contactId} WHERE record_id = ${recordId}`);
}
