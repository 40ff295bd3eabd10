import { Inject, Injectable } from '@nestjs/common';
import {
  ApiError,
  ErrorName,
  pageInfo,
  type AttachmentDto,
  type AttachmentIdRequest,
  type AttachmentReferenceType,
  type AttachmentReply,
  type Caller,
  type CompanyPinnedAttachmentsRequest,
  type ContactPinnedAttachmentsRequest,
  type CreateAttachmentRequest,
  type PinnedAttachmentsReply,
  type UpdateAttachmentRequest,
  type UploadFormReply,
  type UploadFormRequest,
} from '@crm/contracts';
import {
  checkFileContent,
  isValidStorageKey,
  makeThumbnail,
  sanitizeFilename,
  SNIFF_BYTES,
  STORAGE_DRIVER,
  type StorageDriver,
} from '@crm/storage';
import { DataSource } from 'typeorm';
import { isUniqueViolation } from '../common/unique-violation';
import { CrmCoreConfig } from '../config/crm-core.config';
import { toAttachmentDto } from '../records/attachment.view';
import { normalizeId } from '../records/record-common';
import { findCompanyId, findContact } from '../records/record-references.repository';
import { AttachmentsRepository } from './attachments.repository';
import { StoragePurger } from './storage-purger';

const PATH_REFERENCES: ReadonlyArray<[keyof CreateAttachmentRequest, AttachmentReferenceType]> = [
  ['note_id', 'note'],
  ['call_id', 'call'],
  ['meeting_id', 'meeting'],
  ['deal_id', 'deal'],
];

/** `1073741824` -> `1024MB` (OnePageCRM's display_quota). */
function displayBytes(bytes: number): string {
  return `${Math.floor(bytes / (1024 * 1024))}MB`;
}

/**
 * Attachments with stored bytes (decisions.md "Attachments"): upload forms, registration of an
 * uploaded file (checked here: its key, size, type and bytes, and its thumbnail made), renames,
 * pins, pinned lists and deletes. crm-core owns the rows; the bytes live in the storage driver.
 */
@Injectable()
export class AttachmentsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly attachments: AttachmentsRepository,
    @Inject(STORAGE_DRIVER) private readonly storage: StorageDriver,
    private readonly purger: StoragePurger,
    private readonly config: CrmCoreConfig,
  ) {}

  async uploadForm(caller: Caller, request: UploadFormRequest): Promise<UploadFormReply> {
    const contact = await findContact(this.dataSource.manager, caller.account_id, request.contact_id, { field: 'contact_id' });
    const form = await this.storage.uploadForm(`${contact.id}/`, this.config.ATTACHMENT_MAX_BYTES, this.config.UPLOAD_FORM_TTL_SECONDS);
    return {
      quota: this.config.STORAGE_QUOTA_BYTES,
      display_quota: displayBytes(this.config.STORAGE_QUOTA_BYTES),
      used: await this.attachments.storedBytes(this.dataSource.manager, caller.account_id),
      max_file_size: this.config.ATTACHMENT_MAX_BYTES,
      url: form.url,
      fields: form.fields,
    };
  }

  async create(caller: Caller, request: CreateAttachmentRequest): Promise<AttachmentReply> {
    const db = this.dataSource.manager;
    const { type, id: referenceId } = referenceOf(request);
    const record = await this.attachments.findRecord(db, caller.account_id, type, referenceId);
    if (!record) throw ApiError.notFound(`No ${type} of the account has this ${request.reference_id ? 'reference_id' : `${type}_id`}`);
    if (request.contact_id !== undefined && normalizeId(request.contact_id) !== record.contact_id)
      throw ApiError.invalid({ contact_id: `must be the contact of the ${type}` });

    if (request.key === undefined) return this.createExternal(caller, request, type, record);
    const key = request.key;
    const owner = key.split('/', 1)[0];
    if (!isValidStorageKey(key) || (owner !== record.contact_id && owner !== record.id))
      throw ApiError.invalid({ key: 'must be the key of a file uploaded for this contact (<contact_id>/<timestamp>/<filename>)' });
    if (await this.attachments.keyTaken(db, key)) throw new ApiError(ErrorName.Conflict, 'This file is attached already');

    const stored = await this.storage.stat(key);
    if (!stored) throw ApiError.invalid({ key: 'no uploaded file has this key' });
    const storedName = key.slice(key.lastIndexOf('/') + 1);
    if (stored.size > this.config.ATTACHMENT_MAX_BYTES) {
      await this.storage.delete(key);
      throw new ApiError(ErrorName.RequestTooLarge, `The file is larger than ${this.config.ATTACHMENT_MAX_BYTES} bytes`, {
        file: `must be at most ${this.config.ATTACHMENT_MAX_BYTES} bytes`,
      });
    }
    if ((await this.attachments.storedBytes(db, caller.account_id)) + stored.size > this.config.STORAGE_QUOTA_BYTES) {
      await this.storage.delete(key);
      throw ApiError.invalid({ file: `the account's storage quota (${displayBytes(this.config.STORAGE_QUOTA_BYTES)}) is used up` });
    }
    const check = checkFileContent(storedName, await this.storage.readStart(key, SNIFF_BYTES));
    if (!check.ok) {
      await this.storage.delete(key);
      throw new ApiError(ErrorName.UnsupportedMediaType, `The file cannot be attached: ${check.reason}`, { file: check.reason });
    }
    const thumbnailKey = check.image ? await this.thumbnail(key) : null;

    try {
      const id = await this.dataSource.transaction(async (tx) => {
        // The record may have gone while the file was checked.
        if (!(await this.attachments.findRecord(tx, caller.account_id, type, record.id)))
          throw ApiError.notFound(`The ${type} was deleted`);
        return this.attachments.insert(tx, {
          accountId: caller.account_id,
          type,
          recordId: record.id,
          contactId: record.contact_id,
          filename: sanitizeFilename(request.name ?? storedName),
          size: stored.size,
          storageProvider: this.storage.provider,
          url: '',
          storageKey: key,
          thumbnailKey,
          contentType: check.contentType,
        });
      });
      return { attachment: await this.load(caller, id) };
    } catch (error) {
      if (isUniqueViolation(error, 'attachments_storage_key_idx')) throw new ApiError(ErrorName.Conflict, 'This file is attached already');
      if (thumbnailKey) await this.storage.delete(thumbnailKey);
      throw error;
    }
  }

  async update(caller: Caller, request: UpdateAttachmentRequest): Promise<AttachmentDto> {
    const name = request.attachment?.custom_filename ?? request.custom_filename;
    if (name === undefined) throw ApiError.invalid({ 'attachment.custom_filename': 'is required' });
    const id = await this.existing(caller, request.attachment_id);
    await this.attachments.rename(this.dataSource.manager, caller.account_id, id, name.trim() || name);
    return this.load(caller, id);
  }

  async pin(caller: Caller, request: AttachmentIdRequest, pinned: boolean): Promise<AttachmentDto> {
    const id = await this.existing(caller, request.attachment_id);
    await this.attachments.setPinned(this.dataSource.manager, caller.account_id, id, pinned);
    return this.load(caller, id);
  }

  async delete(caller: Caller, request: AttachmentIdRequest): Promise<Record<string, never>> {
    const id = await this.existing(caller, request.attachment_id);
    if (!(await this.attachments.delete(this.dataSource.manager, caller.account_id, id))) throw ApiError.notFound('Attachment not found');
    await this.purger.purgeNow();
    return {};
  }

  async contactPinned(caller: Caller, request: ContactPinnedAttachmentsRequest): Promise<PinnedAttachmentsReply> {
    const contact = await findContact(this.dataSource.manager, caller.account_id, request.contact_id);
    return this.pinned(caller, { contactId: contact.id }, request.page, request.per_page);
  }

  async companyPinned(caller: Caller, request: CompanyPinnedAttachmentsRequest): Promise<PinnedAttachmentsReply> {
    const companyId = await findCompanyId(this.dataSource.manager, caller.account_id, request.company_id, 'company_id');
    return this.pinned(caller, { companyId }, request.page, request.per_page);
  }

  private async pinned(
    caller: Caller,
    owner: { contactId: string } | { companyId: string },
    page: number,
    perPage: number,
  ): Promise<PinnedAttachmentsReply> {
    const { total, rows } = await this.attachments.pinnedPage(this.dataSource.manager, caller.account_id, owner, page, perPage);
    return { pinned_attachments: rows.map((row) => toAttachmentDto(row)), ...pageInfo(total, page, perPage) };
  }

  private async createExternal(
    caller: Caller,
    request: CreateAttachmentRequest,
    type: AttachmentReferenceType,
    record: { id: string; contact_id: string },
  ): Promise<AttachmentReply> {
    if (!request.link_type) throw ApiError.invalid({ link_type: 'is required with external_url' });
    const url = request.external_url!;
    const size = typeof request.size === 'number' && Number.isSafeInteger(request.size) && request.size >= 0 ? request.size : 0;
    const id = await this.attachments.insert(this.dataSource.manager, {
      accountId: caller.account_id,
      type,
      recordId: record.id,
      contactId: record.contact_id,
      filename: sanitizeFilename(request.name ?? decodeURIComponent(new URL(url).pathname.split('/').pop() || 'file')),
      size,
      storageProvider: request.link_type,
      url,
      storageKey: null,
      thumbnailKey: null,
      contentType: null,
    });
    return { attachment: await this.load(caller, id) };
  }

  /** A 200 x 200 JPEG preview beside the file; an image sharp cannot read (or a decompression bomb) is refused. */
  private async thumbnail(key: string): Promise<string> {
    const source = await this.storage.read(key);
    if (!source) throw ApiError.invalid({ key: 'no uploaded file has this key' });
    let preview: Buffer;
    try {
      preview = await makeThumbnail(source);
    } catch {
      source.destroy();
      await this.storage.delete(key);
      throw new ApiError(ErrorName.UnsupportedMediaType, 'The image cannot be read (damaged, or larger than 40 megapixels)', {
        file: 'must be a readable image of at most 40 megapixels',
      });
    }
    const thumbnailKey = `${key}.thumb.jpg`;
    await this.storage.putBuffer(thumbnailKey, preview, 'image/jpeg');
    return thumbnailKey;
  }

  private async existing(caller: Caller, rawId: string): Promise<string> {
    const id = normalizeId(rawId);
    const row = id ? await this.attachments.find(this.dataSource.manager, caller.account_id, id) : undefined;
    if (!row) throw ApiError.notFound('Attachment not found');
    return row.id;
  }

  private async load(caller: Caller, id: string): Promise<AttachmentDto> {
    const row = await this.attachments.find(this.dataSource.manager, caller.account_id, id);
    if (!row) throw ApiError.notFound('Attachment not found');
    return toAttachmentDto(row);
  }
}

/** The record a file is attached to: the path's id (per-record routes) or reference_type and reference_id. */
function referenceOf(request: CreateAttachmentRequest): { type: AttachmentReferenceType; id: string } {
  for (const [field, type] of PATH_REFERENCES) {
    const value = request[field];
    if (typeof value !== 'string') continue;
    if (request.reference_type !== undefined && request.reference_type !== type)
      throw ApiError.invalid({ reference_type: `must be ${type} here` });
    const id = normalizeId(value);
    if (!id) throw ApiError.notFound(`${type[0].toUpperCase()}${type.slice(1)} not found`);
    return { type, id };
  }
  const errors: Record<string, string> = {};
  if (!request.reference_type) errors.reference_type = 'is required (deal, note, call or meeting)';
  if (!request.reference_id) errors.reference_id = 'is required';
  if (Object.keys(errors).length > 0) throw ApiError.invalid(errors);
  const id = normalizeId(request.reference_id);
  if (!id) throw ApiError.notFound(`No ${request.reference_type} of the account has this reference_id`);
  return { type: request.reference_type!, id };
}
