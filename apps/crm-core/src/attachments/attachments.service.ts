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
  makeThumbnail,
  newStorageKey,
  sanitizeFilename,
  SNIFF_BYTES,
  STORAGE_DRIVER,
  StoredUploadSigner,
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
    private readonly uploads: StoredUploadSigner,
  ) {}

  /**
   * A form for one file of a contact (decisions.md "Upload forms"): the key is chosen here
   * (`<contact_id>/<nonce>/<name>`), recorded with its expiry, and its size reserved from the
   * account's quota until the form is purged; the form's size is what the quota leaves, at most
   * ATTACHMENT_MAX_BYTES, and none is given when nothing is left.
   */
  async uploadForm(caller: Caller, request: UploadFormRequest): Promise<UploadFormReply> {
    const contact = await findContact(this.dataSource.manager, caller.account_id, request.contact_id, { field: 'contact_id' });
    const key = newStorageKey(contact.id, sanitizeFilename(request.filename ?? 'file'));
    const quota = this.config.STORAGE_QUOTA_BYTES;
    const { maxBytes, used } = await this.dataSource.transaction(async (tx) => {
      await this.attachments.lockQuota(tx, caller.account_id);
      const stored = await this.attachments.storedBytes(tx, caller.account_id);
      const maxBytes = Math.min(this.config.ATTACHMENT_MAX_BYTES, quota - stored);
      if (maxBytes <= 0)
        throw ApiError.invalid({
          contact_id: `the account's storage quota (${displayBytes(quota)}) is used up; delete attachments, or wait for unused upload forms to expire`,
        });
      await this.attachments.insertUploadForm(tx, {
        key,
        accountId: caller.account_id,
        contactId: contact.id,
        maxBytes,
        expiresInSeconds: this.config.UPLOAD_FORM_TTL_SECONDS,
      });
      return { maxBytes, used: stored + maxBytes };
    });
    const form = await this.storage.uploadForm(key, maxBytes, this.config.UPLOAD_FORM_TTL_SECONDS);
    return {
      quota,
      display_quota: displayBytes(quota),
      used,
      max_file_size: maxBytes,
      url: form.url,
      // OnePageCRM documents x-ignore-pattern, the key's shape for the client to fill in; here the
      // server chose the whole key, so the pattern is that key (S3 and POST /files ignore x-ignore-*).
      fields: { ...form.fields, 'x-ignore-pattern': key },
    };
  }

  /**
   * Registers a stored file: a file the gateway stored from this request (its key bound to the
   * account and the record or its contact), or the file of an upload form of the record's contact,
   * which is copied to a key no form names. Nothing a request names is ever deleted here: the
   * gateway removes its own upload when this refuses, and a form's key is purged when it expires.
   */
  async create(caller: Caller, request: CreateAttachmentRequest): Promise<AttachmentReply> {
    const db = this.dataSource.manager;
    const { type, id: referenceId } = referenceOf(request);
    const record = await this.attachments.findRecord(db, caller.account_id, type, referenceId);
    if (!record) throw ApiError.notFound(`No ${type} of the account has this ${request.reference_id ? 'reference_id' : `${type}_id`}`);
    if (request.contact_id !== undefined && normalizeId(request.contact_id) !== record.contact_id)
      throw ApiError.invalid({ contact_id: `must be the contact of the ${type}` });

    if (request.key === undefined) return this.createExternal(caller, request, type, record);
    const key = request.key;
    const direct =
      this.uploads.verify('file', caller.account_id, record.id, key) ||
      this.uploads.verify('file', caller.account_id, record.contact_id, key);
    return direct ? this.registerStored(caller, request, type, record, key) : this.registerFormUpload(caller, request, type, record, key);
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

  /** A file the gateway stored from this request: checked and recorded under its own key. */
  private async registerStored(
    caller: Caller,
    request: CreateAttachmentRequest,
    type: AttachmentReferenceType,
    record: { id: string; contact_id: string },
    key: string,
  ): Promise<AttachmentReply> {
    const db = this.dataSource.manager;
    if (await this.attachments.keyTaken(db, key)) throw new ApiError(ErrorName.Conflict, 'This file is attached already');
    const stored = await this.storage.stat(key);
    if (!stored) throw ApiError.invalid({ key: 'no uploaded file has this key' });
    const filename = sanitizeFilename(request.name ?? key.slice(key.lastIndexOf('/') + 1));
    const check = await this.checkStored(caller, key, filename, stored.size, 0);
    return this.record(caller, type, record, { key, filename, size: stored.size, contentType: check.contentType, image: check.image });
  }

  /** The file of an upload form of the record's contact: checked, copied to a key of its own, the form marked registered. */
  private async registerFormUpload(
    caller: Caller,
    request: CreateAttachmentRequest,
    type: AttachmentReferenceType,
    record: { id: string; contact_id: string },
    key: string,
  ): Promise<AttachmentReply> {
    const db = this.dataSource.manager;
    const form = await this.attachments.uploadForm(db, caller.account_id, key);
    if (!form || form.contact_id !== record.contact_id)
      throw ApiError.invalid({
        key: `must be the key field of a form of GET /attachments/s3_form for the ${type}'s contact, or send the file as multipart`,
      });
    if (form.registered) throw new ApiError(ErrorName.Conflict, 'This file is attached already');
    if (!form.open) throw ApiError.invalid({ key: 'the upload form has expired; upload the file again with a new form' });
    const stored = await this.storage.stat(key);
    if (!stored) throw ApiError.invalid({ key: 'no uploaded file has this key' });
    if (stored.size > form.max_bytes)
      throw new ApiError(ErrorName.RequestTooLarge, `The file is larger than its form's ${form.max_bytes} bytes`, {
        file: `must be at most ${form.max_bytes} bytes`,
      });
    const filename = sanitizeFilename(request.name ?? key.slice(key.lastIndexOf('/') + 1));
    const check = await this.checkStored(caller, key, filename, stored.size, form.max_bytes);
    const target = newStorageKey(record.contact_id, filename);
    await this.storage.copy(key, target);
    return this.record(
      caller,
      type,
      record,
      { key: target, filename, size: stored.size, contentType: check.contentType, image: check.image },
      key,
    );
  }

  /** Size, quota (less what the file's own form reserves) and type by the first bytes. */
  private async checkStored(caller: Caller, key: string, filename: string, size: number, reserved: number) {
    if (size > this.config.ATTACHMENT_MAX_BYTES)
      throw new ApiError(ErrorName.RequestTooLarge, `The file is larger than ${this.config.ATTACHMENT_MAX_BYTES} bytes`, {
        file: `must be at most ${this.config.ATTACHMENT_MAX_BYTES} bytes`,
      });
    if (
      (await this.attachments.storedBytes(this.dataSource.manager, caller.account_id)) - reserved + size >
      this.config.STORAGE_QUOTA_BYTES
    )
      throw ApiError.invalid({ file: `the account's storage quota (${displayBytes(this.config.STORAGE_QUOTA_BYTES)}) is used up` });
    const check = checkFileContent(filename, await this.storage.readStart(key, SNIFF_BYTES));
    if (!check.ok)
      throw new ApiError(ErrorName.UnsupportedMediaType, `The file cannot be attached: ${check.reason}`, { file: check.reason });
    return check;
  }

  /**
   * Makes the thumbnail and inserts the row (with the form marked registered, when `formKey`); the
   * keys written here (a copy, a thumbnail) are removed again when that fails.
   */
  private async record(
    caller: Caller,
    type: AttachmentReferenceType,
    record: { id: string; contact_id: string },
    file: { key: string; filename: string; size: number; contentType: string; image: boolean },
    formKey?: string,
  ): Promise<AttachmentReply> {
    let thumbnailKey: string | null = null;
    try {
      thumbnailKey = file.image ? await this.thumbnail(file.key) : null;
      const id = await this.dataSource.transaction(async (tx) => {
        // The record may have gone while the file was checked; the form may have been registered meanwhile.
        if (!(await this.attachments.findRecord(tx, caller.account_id, type, record.id)))
          throw ApiError.notFound(`The ${type} was deleted`);
        if (formKey) {
          const form = await this.attachments.uploadForm(tx, caller.account_id, formKey);
          if (!form || form.registered) throw new ApiError(ErrorName.Conflict, 'This file is attached already');
          await this.attachments.uploadFormRegistered(tx, caller.account_id, formKey);
        }
        return this.attachments.insert(tx, {
          accountId: caller.account_id,
          type,
          recordId: record.id,
          contactId: record.contact_id,
          filename: file.filename,
          size: file.size,
          storageProvider: this.storage.provider,
          url: '',
          storageKey: file.key,
          thumbnailKey,
          contentType: file.contentType,
        });
      });
      if (formKey) await this.purger.purgeNow();
      return { attachment: await this.load(caller, id) };
    } catch (error) {
      if (thumbnailKey) await this.storage.delete(thumbnailKey).catch(() => undefined);
      if (formKey) await this.storage.delete(file.key).catch(() => undefined);
      if (isUniqueViolation(error, 'attachments_storage_key_idx')) throw new ApiError(ErrorName.Conflict, 'This file is attached already');
      throw error;
    }
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

  /** A 200 x 200 JPEG preview beside the file; an image sharp cannot read (or a decompression bomb) is refused (the file is left as it is). */
  private async thumbnail(key: string): Promise<string> {
    const source = await this.storage.read(key);
    if (!source) throw ApiError.invalid({ key: 'no uploaded file has this key' });
    let preview: Buffer;
    try {
      preview = await makeThumbnail(source);
    } catch {
      source.destroy();
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
