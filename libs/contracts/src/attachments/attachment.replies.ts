import type { PageInfo } from '../paging/paging.request';
import type { AttachmentDto } from './attachment.dto';

/** GET /attachments/s3_form (OnePageCRM's shape). */
export interface UploadFormReply {
  /** Bytes the account may store. */
  quota: number;
  display_quota: string;
  /** Bytes the account stores now. */
  used: number;
  /** Largest file accepted. */
  max_file_size: number;
  url: string;
  fields: Record<string, string>;
}

export interface AttachmentReply {
  attachment: AttachmentDto;
}

export interface PinnedAttachmentsReply extends PageInfo {
  pinned_attachments: AttachmentDto[];
}
