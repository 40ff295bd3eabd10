/** The spec's Attachment (metadata of a file kept by a storage provider). */
export interface AttachmentDto {
  id: string;
  filename: string;
  custom_filename: string;
  pinned: boolean;
  /** Unix seconds; null when not pinned. */
  pinned_at: number | null;
  size: number;
  storage_provider: string;
  url: string;
  /** Unix seconds; null when the URL does not expire. */
  url_expires_at: number | null;
  thumbnail: { url: string } | null;
}
