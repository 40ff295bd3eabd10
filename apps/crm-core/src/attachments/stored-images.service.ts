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
  makeSquareImage,
  newStorageKey,
  sniffImage,
  SNIFF_BYTES,
  STORAGE_DRIVER,
  StoredUploadSigner,
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
 * gateway stores the uploaded image under the contact's or company's id and sends its key, bound
 * to the account and that id (StoredUploadSigner): no other key is taken, and none is deleted
 * because a request named it. This checks it is an image and stores the square copy; the gateway
 * removes its upload, and the previous picture goes through the purge queue. `photo_url` links do
 * not expire (decisions.md "Attachments", "Upload forms").
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
    private readonly uploads: StoredUploadSigner,
  ) {}

  async setContactPhoto(caller: Caller, request: ContactPhotoRequest): Promise<ContactWrapperDto> {
    const contact = await findContact(this.dataSource.manager, caller.account_id, request.contact_id);
    const key = await this.squareCopy(caller, contact.id, request.key);
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
    const key = await this.squareCopy(caller, companyId, request.key);
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

  /** The 200 x 200 PNG of the image the gateway stored at `key` for `ownerId`, stored under a new key. */
  private async squareCopy(caller: Caller, ownerId: string, key: string | undefined): Promise<string> {
    // `image` in base64 never reaches crm-core: the gateway stores it and sends its key.
    if (!key) throw ApiError.invalid({ image: 'is required (base64 image data or a multipart image)' });
    if (!this.uploads.verify('image', caller.account_id, ownerId, key))
      throw ApiError.invalid({ key: 'is not accepted: send the picture as image (base64 or a data URI) or as a multipart image part' });
    const stored = await this.storage.stat(key);
    if (!stored) throw ApiError.invalid({ image: 'the uploaded image is no longer stored; send it again' });
    if (stored.size > this.config.ATTACHMENT_MAX_BYTES)
      throw new ApiError(ErrorName.RequestTooLarge, `The image is larger than ${this.config.ATTACHMENT_MAX_BYTES} bytes`, {
        image: `must be at most ${this.config.ATTACHMENT_MAX_BYTES} bytes`,
      });
    if (!sniffImage(await this.storage.readStart(key, SNIFF_BYTES)))
      throw new ApiError(ErrorName.UnsupportedMediaType, 'The image must be a PNG, JPEG, GIF or WebP image', {
        image: 'must be a PNG, JPEG, GIF or WebP image',
      });
    const source = await this.storage.read(key);
    if (!source) throw ApiError.invalid({ image: 'the uploaded image is no longer stored; send it again' });
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
  }
}
