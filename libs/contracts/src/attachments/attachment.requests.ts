import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsInt,
  IsOptional,
  IsString,
  Length,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { present } from '../validation/validators';

/**
 * Attachment metadata sent with a deal, note, call or meeting: a file the client already stored
 * (an external provider's link). The array sent replaces the record's attachments; an entry
 * carrying the `id` of one of the record's attachments keeps that attachment (and updates it).
 */
export class AttachmentInput {
  @IsOptional()
  @IsString({ message: 'id must be a string' })
  @MaxLength(24, { message: 'id must be an attachment id' })
  id?: string;

  @IsString({ message: 'filename must be a string' })
  @Length(1, 255, { message: 'filename must be 1 to 255 characters' })
  filename: string;

  @IsOptional()
  @IsString({ message: 'custom_filename must be a string' })
  @MaxLength(255, { message: 'custom_filename must be at most 255 characters' })
  custom_filename?: string;

  @IsOptional()
  @IsBoolean({ message: 'pinned must be true or false' })
  pinned?: boolean;

  @IsOptional()
  @IsInt({ message: 'size must be an integer number of bytes' })
  @Min(0, { message: 'size must be an integer number of bytes' })
  @Max(Number.MAX_SAFE_INTEGER, {
    message: 'size must be an integer number of bytes',
  })
  size?: number;

  @IsOptional()
  @IsString({ message: 'storage_provider must be a string' })
  @MaxLength(50, { message: 'storage_provider must be at most 50 characters' })
  storage_provider?: string;

  @IsString({ message: 'url must be an absolute http(s) URL' })
  @MaxLength(2000, { message: 'url must be at most 2000 characters' })
  @Matches(/^https?:\/\/\S+$/i, {
    message: 'url must be an absolute http(s) URL',
  })
  url: string;

  @ValidateIf((o: AttachmentInput) => o.url_expires_at !== undefined && o.url_expires_at !== null)
  @IsInt({ message: 'url_expires_at must be Unix seconds' })
  @Min(0, { message: 'url_expires_at must be Unix seconds' })
  @Max(99_999_999_999, { message: 'url_expires_at must be Unix seconds' })
  url_expires_at?: number | null;

  @ValidateIf((o: AttachmentInput) => o.thumbnail_url !== undefined && o.thumbnail_url !== null)
  @IsString({ message: 'thumbnail_url must be an absolute http(s) URL' })
  @MaxLength(2000, { message: 'thumbnail_url must be at most 2000 characters' })
  @Matches(/^https?:\/\/\S+$/i, {
    message: 'thumbnail_url must be an absolute http(s) URL',
  })
  thumbnail_url?: string | null;
}

/** `attachments` of notes, calls and meetings. */
export class AttachmentsField {
  @ValidateIf(present('attachments'))
  @IsArray({ message: 'attachments must be an array of attachments' })
  @ArrayMaxSize(100, { message: 'attachments may hold at most 100 entries' })
  @ValidateNested({ each: true })
  @Type(() => AttachmentInput)
  attachments?: AttachmentInput[] | null;
}
