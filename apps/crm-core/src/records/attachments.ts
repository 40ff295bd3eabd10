import { newId } from '@crm/common';
import type { AttachmentDto, AttachmentInput } from '@crm/contracts';
import type { EntityManager } from 'typeorm';

export type AttachmentRecordType = 'deal' | 'note' | 'call' | 'meeting';

/** A SELECT-list expression: the attachments of the record whose id is `idColumn`, as a JSON array. */
export function attachmentsJson(idColumn: string): string {
  return `(SELECT coalesce(json_agg(json_build_object('id', t.id, 'filename', t.filename, 'custom_filename', t.custom_filename, 'pinned', t.pinned,
            'pinned_at', extract(epoch from t.pinned_at)::bigint, 'size', t.size, 'storage_provider', t.storage_provider, 'url', t.url,
            'url_expires_at', t.url_expires_at, 'thumbnail_url', t.thumbnail_url) ORDER BY t.position, t.id), '[]'::json)
          FROM crm.attachments t WHERE t.record_id = ${idColumn})`;
}

interface AttachmentJson {
  id: string;
  filename: string;
  custom_filename: string;
  pinned: boolean;
  pinned_at: number | string | null;
  size: number | string;
  storage_provider: string;
  url: string;
  url_expires_at: number | string | null;
  thumbnail_url: string | null;
}

export function toAttachmentDtos(rows: unknown): AttachmentDto[] {
  if (!Array.isArray(rows)) return [];
  return (rows as AttachmentJson[]).map((a) => ({
    id: a.id,
    filename: a.filename,
    custom_filename: a.custom_filename,
    pinned: a.pinned,
    pinned_at: a.pinned_at === null ? null : Number(a.pinned_at),
    size: Number(a.size),
    storage_provider: a.storage_provider,
    url: a.url,
    url_expires_at: a.url_expires_at === null ? null : Number(a.url_expires_at),
    thumbnail: a.thumbnail_url ? { url: a.thumbnail_url } : null,
  }));
}

/**
 * Replaces a record's attachment metadata with `inputs` (in order): an input carrying the id of
 * one of the record's attachments updates it (pinned_at kept while it stays pinned), others are
 * added, and the record's attachments not listed are removed.
 */
export async function replaceAttachments(
  m: EntityManager,
  accountId: string,
  type: AttachmentRecordType,
  recordId: string,
  contactId: string,
  inputs: readonly AttachmentInput[],
): Promise<void> {
  const existing: Array<{ id: string; pinned: boolean }> = await m.query(
    'SELECT id, pinned FROM crm.attachments WHERE record_id = $1 AND account_id = $2',
    [recordId, accountId],
  );
  const byId = new Map(existing.map((a) => [a.id, a]));
  const kept = new Set<string>();
  for (const [position, input] of inputs.entries()) {
    const id = input.id?.toLowerCase();
    const current = id ? byId.get(id) : undefined;
    const pinned = input.pinned === true;
    const values = [
      input.filename,
      input.custom_filename ?? '',
      pinned,
      input.size ?? 0,
      input.storage_provider || 'external',
      input.url,
      input.url_expires_at ?? null,
      input.thumbnail_url ?? null,
      position,
    ];
    if (current && !kept.has(current.id)) {
      kept.add(current.id);
      await m.query(
        `UPDATE crm.attachments SET filename = $2, custom_filename = $3, pinned = $4, pinned_at = CASE WHEN $4 THEN coalesce(pinned_at, now()) ELSE NULL END,
           size = $5, storage_provider = $6, url = $7, url_expires_at = $8, thumbnail_url = $9, position = $10, contact_id = $11, modified_at = now()
         WHERE id = $1`,
        [current.id, ...values, contactId],
      );
    } else {
      await m.query(
        `INSERT INTO crm.attachments (id, account_id, record_type, record_id, contact_id, filename, custom_filename, pinned, pinned_at, size, storage_provider, url, url_expires_at, thumbnail_url, position)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, CASE WHEN $8 THEN now() END, $9, $10, $11, $12, $13, $14)`,
        [newId(), accountId, type, recordId, contactId, ...values],
      );
    }
  }
  const removed = existing.filter((a) => !kept.has(a.id)).map((a) => a.id);
  if (removed.length > 0) await m.query('DELETE FROM crm.attachments WHERE id = ANY($1::varchar[])', [removed]);
}

export async function deleteAttachments(m: EntityManager, recordId: string): Promise<void> {
  await m.query('DELETE FROM crm.attachments WHERE record_id = $1', [recordId]);
}
