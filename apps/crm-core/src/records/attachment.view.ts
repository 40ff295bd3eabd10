import type { AttachmentDto } from '@crm/contracts';

/** One attachment as the records' `attachments` JSON array holds it (see attachmentsJson). */
export interface AttachmentJson {
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
