import type { AttachmentDto } from '@crm/contracts';
import type { FileUrlSigner } from '@crm/storage';

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
  /** Set for files we store: `url` and the thumbnail's are signed when rendered. */
  storage_key?: string | null;
  thumbnail_key?: string | null;
}

let signer: FileUrlSigner | null = null;

/**
 * The signer of stored files' download links, set once at start-up by the attachments module
 * (views render without I/O or injection; decisions.md "Attachments"). Without it (a test of a
 * view alone) stored files render with the URL column as stored.
 */
export function useAttachmentLinkSigner(value: FileUrlSigner | null): void {
  signer = value;
}

export function toAttachmentDto(a: AttachmentJson, nowSeconds?: number): AttachmentDto {
  const stored = a.storage_key && signer ? signer.link(a.storage_key, nowSeconds) : null;
  const thumbnail = a.thumbnail_key && signer ? signer.link(a.thumbnail_key, nowSeconds).url : a.thumbnail_url;
  return {
    id: a.id,
    filename: a.filename,
    custom_filename: a.custom_filename,
    pinned: a.pinned,
    pinned_at: a.pinned_at === null ? null : Number(a.pinned_at),
    size: Number(a.size),
    storage_provider: a.storage_provider,
    url: stored ? stored.url : a.url,
    url_expires_at: stored ? stored.expiresAt : a.url_expires_at === null ? null : Number(a.url_expires_at),
    thumbnail: thumbnail ? { url: thumbnail } : null,
  };
}

export function toAttachmentDtos(rows: unknown): AttachmentDto[] {
  if (!Array.isArray(rows)) return [];
  const now = Math.floor(Date.now() / 1000);
  return (rows as AttachmentJson[]).map((a) => toAttachmentDto(a, now));
}
