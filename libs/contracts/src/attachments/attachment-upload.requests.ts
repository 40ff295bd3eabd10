import { Type } from 'class-transformer';
import { IsIn, IsObject, IsOptional, IsString, Length, Matches, MaxLength, ValidateIf, ValidateNested } from 'class-validator';
import { PagingRequest } from '../paging/paging.request';
import { present } from '../validation/validators';

export const ATTACHMENT_REFERENCE_TYPES = ['deal', 'note', 'call', 'meeting'] as const;
export type AttachmentReferenceType = (typeof ATTACHMENT_REFERENCE_TYPES)[number];

export const EXTERNAL_LINK_TYPES = ['dropbox', 'google_drive', 'evernote'] as const;

/** Longest base64 `image` of a photo or logo: the 1 MiB JSON body holds about 750 KB of image. */
export const MAX_IMAGE_BASE64_LENGTH = 1_048_576;

/** GET /attachments/s3_form: an upload form for one file of a contact. */
export class UploadFormRequest {
  @IsString({ message: 'contact_id is required' })
  @MaxLength(64, { message: 'contact_id must be a contact id' })
  contact_id: string;

  /** The file's name, the last segment of the form's key (sanitized; default `file`: then register it with `name`). */
  @IsOptional()
  @IsString({ message: 'filename must be a string' })
  @Length(1, 255, { message: 'filename must be 1 to 255 characters' })
  filename?: string;
}

/**
 * POST /attachments, and POST /{notes,calls,meetings,deals}/{id}/attachments (the path's id is the
 * reference). `key` names a file uploaded through the form of GET /attachments/s3_form (the
 * form's `key` field), or stored by the gateway from a multipart body; or,
 * for a file an external provider keeps, `link_type` with `external_url` instead of `key`.
 */
export class CreateAttachmentRequest {
  @IsOptional()
  @IsIn(ATTACHMENT_REFERENCE_TYPES, { message: `reference_type must be one of ${ATTACHMENT_REFERENCE_TYPES.join(', ')}` })
  reference_type?: AttachmentReferenceType;

  @IsOptional()
  @IsString({ message: 'reference_id must be a string' })
  @MaxLength(64, { message: 'reference_id must be a record id' })
  reference_id?: string;

  /** Path parameters of the per-record routes. */
  @IsOptional()
  @IsString()
  @MaxLength(64)
  note_id?: string;

  @IsOptional()
  @IsString()
  @MaxLength(64)
  call_id?: string;

  @IsOptional()
  @IsString()
  @MaxLength(64)
  meeting_id?: string;

  @IsOptional()
  @IsString()
  @MaxLength(64)
  deal_id?: string;

  @IsOptional()
  @IsString({ message: 'contact_id must be a string' })
  @MaxLength(64, { message: 'contact_id must be a contact id' })
  contact_id?: string;

  /** The file's name (default: the key's last segment). */
  @IsOptional()
  @IsString({ message: 'name must be a string' })
  @Length(1, 255, { message: 'name must be 1 to 255 characters' })
  name?: string;

  @ValidateIf((o: CreateAttachmentRequest) => o.external_url === undefined || o.external_url === null || o.key !== undefined)
  @IsString({ message: 'key is required (the key of the uploaded file)' })
  @Length(1, 1024, { message: 'key must be 1 to 1024 characters' })
  key?: string;

  /** Ignored for stored files (the stored size is used); the size of an external file. */
  @IsOptional()
  size?: unknown;

  @ValidateIf(present('link_type'))
  @IsIn(EXTERNAL_LINK_TYPES, { message: `link_type must be one of ${EXTERNAL_LINK_TYPES.join(', ')}` })
  link_type?: string | null;

  @ValidateIf(present('external_url'))
  @IsString({ message: 'external_url must be an absolute http(s) URL' })
  @MaxLength(2000, { message: 'external_url must be at most 2000 characters' })
  @Matches(/^https?:\/\/\S+$/i, { message: 'external_url must be an absolute http(s) URL' })
  external_url?: string | null;
}

export class AttachmentIdRequest {
  @IsString()
  attachment_id: string;
}

class AttachmentNameFields {
  @IsString({ message: 'custom_filename must be a string' })
  @Length(1, 255, { message: 'custom_filename must be 1 to 255 characters (it cannot be unset)' })
  custom_filename: string;
}

/** PATCH /attachments/{id}: `{ attachment: { custom_filename } }` (OnePageCRM), or custom_filename at the top. */
export class UpdateAttachmentRequest extends AttachmentIdRequest {
  @IsOptional()
  @IsObject({ message: 'attachment must be an object' })
  @ValidateNested()
  @Type(() => AttachmentNameFields)
  attachment?: AttachmentNameFields;

  @IsOptional()
  @IsString({ message: 'custom_filename must be a string' })
  @Length(1, 255, { message: 'custom_filename must be 1 to 255 characters (it cannot be unset)' })
  custom_filename?: string;
}

export class ContactPinnedAttachmentsRequest extends PagingRequest {
  @IsString()
  contact_id: string;
}

export class CompanyPinnedAttachmentsRequest extends PagingRequest {
  @IsString()
  company_id: string;
}

/**
 * POST/PUT /contacts/{id}/contact_photo and PATCH /companies/{id}/logo: `image` (base64, or a data
 * URI) as OnePageCRM sends it, or a multipart `image` file; the gateway stores the bytes and the
 * service receives `key` (a file under the contact's or company's id) instead.
 */
class StoredImageFields {
  @ValidateIf((o: StoredImageFields) => o.key === undefined)
  @IsString({ message: 'image is required (base64 image data)' })
  @Length(1, MAX_IMAGE_BASE64_LENGTH, { message: `image must be 1 to ${MAX_IMAGE_BASE64_LENGTH} characters of base64` })
  image?: string;

  @IsOptional()
  @IsString({ message: 'key must be a string' })
  @Length(1, 1024, { message: 'key must be 1 to 1024 characters' })
  key?: string;
}

export class ContactPhotoRequest extends StoredImageFields {
  @IsString()
  contact_id: string;
}

export class CompanyLogoRequest extends StoredImageFields {
  @IsString()
  company_id: string;
}

export class ContactPhotoIdRequest {
  @IsString()
  contact_id: string;
}

export class CompanyLogoIdRequest {
  @IsString()
  company_id: string;
}
