import { Inject, Injectable } from '@nestjs/common';
import {
  ApiError,
  ErrorName,
  type Caller,
  type CompanyLogoIdRequest,
  type CompanyLogoRequest,
  type CompanyReply,
  type ContactPhotoIdRequest,
  type ContactPhotoRequest,
  type ContactWrapperDto,
} from '@crm/contracts';
import {
  FileUrlSigner,
  isValidStorageKey,
  makeSquareImage,
  newStorageKey,
  sniffImage,
  SNIFF_BYTES,
  STORAGE_DRIVER,
  type StorageDriver,
} from '@crm/storage';
import { DataSource } from 'typeorm';
import { CompaniesService } from '../companies/companies.service';
import { CrmCoreConfig } from '../config/crm-core.config';
import { ContactsService } from '../contacts/contacts.service';
import { findCompanyId, findContact } from '../records/record-references.repository';
import { AttachmentsRepository } from './attachments.repository';
import { StoragePurger } from './storage-purger';

/**
 * Contact photos and company logos (OnePageCRM: cropped to a centered square, 200 x 200). The
 * gateway stores the uploaded image under the contact's or company's id and sends its key; this
 * checks it is an image, stores the square copy, and removes the upload and the previous picture.
 * `photo_url` links do not expire (decisions.md "Attachments").
 */
@Injectable()
export class StoredImagesService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly attachments: AttachmentsRepository,
    @Inject(STORAGE_DRIVER) private readonly storage: StorageDriver,
    private readonly signer: FileUrlSigner,
    private readonly purger: StoragePurger,
    private readonly config: CrmCoreConfig,
    private readonly contacts: ContactsService,
    private readonly companies: CompaniesService,
  ) {}

  async setContactPhoto(caller: Caller, request: ContactPhotoRequest): Promise<ContactWrapperDto> {
    const contact = await findContact(this.dataSource.manager, caller.account_id, request.contact_id);
    const key = await this.squareCopy(contact.id, request.key);
    await this.dataSource.transaction(async (tx) => {
      await findContact(tx, caller.account_id, contact.id);
      await this.attachments.setContactPhoto(tx, caller.account_id, contact.id, key, this.signer.permanentLink(key));
    });
    await this.purger.purgeNow();
    return this.contacts.get(caller, { contact_id: contact.id });
  }

  async deleteContactPhoto(caller: Caller, request: ContactPhotoIdRequest): Promise<ContactWrapperDto> {
    const contact = await findContact(this.dataSource.manager, caller.account_id, request.contact_id);
    await this.dataSource.transaction((tx) => this.attachments.setContactPhoto(tx, caller.account_id, contact.id, null, ''));
    await this.purger.purgeNow();
    return this.contacts.get(caller, { contact_id: contact.id });
  }

  async setCompanyLogo(caller: Caller, request: CompanyLogoRequest): Promise<CompanyReply> {
    const companyId = await findCompanyId(this.dataSource.manager, caller.account_id, request.company_id, 'company_id');
    const key = await this.squareCopy(companyId, request.key);
    await this.dataSource.transaction((tx) =>
      this.attachments.setCompanyLogo(tx, caller.account_id, companyId, key, this.signer.permanentLink(key)),
    );
    await this.purger.purgeNow();
    return this.companies.get(caller, { company_id: companyId });
  }

  async deleteCompanyLogo(caller: Caller, request: CompanyLogoIdRequest): Promise<CompanyReply> {
    const companyId = await findCompanyId(this.dataSource.manager, caller.account_id, request.company_id, 'company_id');
    await this.dataSource.transaction((tx) => this.attachments.setCompanyLogo(tx, caller.account_id, companyId, null, ''));
    await this.purger.purgeNow();
    return this.companies.get(caller, { company_id: companyId });
  }

  /** The 200 x 200 PNG of the image uploaded at `key` (under `ownerId`), stored under a new key; the upload is removed. */
  private async squareCopy(ownerId: string, key: string | undefined): Promise<string> {
    // `image` in base64 never reaches crm-core: the gateway stores it and sends its key.
    if (!key) throw ApiError.invalid({ image: 'is required (base64 image data or a multipart image)' });
    if (!isValidStorageKey(key) || key.split('/', 1)[0] !== ownerId)
      throw ApiError.invalid({ key: 'must be the key of an image uploaded for this record' });
    const stored = await this.storage.stat(key);
    if (!stored) throw ApiError.invalid({ key: 'no uploaded file has this key' });
    try {
      if (stored.size > this.config.ATTACHMENT_MAX_BYTES)
        throw new ApiError(ErrorName.RequestTooLarge, `The image is larger than ${this.config.ATTACHMENT_MAX_BYTES} bytes`, {
          image: `must be at most ${this.config.ATTACHMENT_MAX_BYTES} bytes`,
        });
      if (!sniffImage(await this.storage.readStart(key, SNIFF_BYTES)))
        throw new ApiError(ErrorName.UnsupportedMediaType, 'The image must be a PNG, JPEG, GIF or WebP image', {
          image: 'must be a PNG, JPEG, GIF or WebP image',
        });
      const source = await this.storage.read(key);
      if (!source) throw ApiError.invalid({ key: 'no uploaded file has this key' });
      let square: Buffer;
      try {
        square = await makeSquareImage(source);
      } catch {
        source.destroy();
        throw new ApiError(ErrorName.UnsupportedMediaType, 'The image cannot be read (damaged, or larger than 40 megapixels)', {
          image: 'must be a readable image of at most 40 megapixels',
        });
      }
      const target = newStorageKey(ownerId, 'picture.png');
      await this.storage.putBuffer(target, square, 'image/png');
      return target;
    } finally {
      await this.storage.delete(key);
    }
  }
}
