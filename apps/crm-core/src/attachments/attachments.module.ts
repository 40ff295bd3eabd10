import { Module, type OnModuleDestroy } from '@nestjs/common';
import { FileUrlSigner } from '@crm/storage';
import { CompaniesModule } from '../companies/companies.module';
import { ContactsModule } from '../contacts/contacts.module';
import { useAttachmentLinkSigner } from '../records/attachment.view';
import { AttachmentsHandler } from './attachments.handler';
import { AttachmentsRepository } from './attachments.repository';
import { AttachmentsService } from './attachments.service';
import { StoragePurger } from './storage-purger';
import { StoredImagesService } from './stored-images.service';

/**
 * Attachments with stored bytes, pinned lists, contact photos and company logos (decisions.md
 * "Attachments"). The storage driver comes from the global StorageModule; this module hands the
 * link signer to the attachment view, which every record's view uses.
 */
@Module({
  imports: [ContactsModule, CompaniesModule],
  controllers: [AttachmentsHandler],
  providers: [AttachmentsService, StoredImagesService, AttachmentsRepository, StoragePurger],
})
export class AttachmentsModule implements OnModuleDestroy {
  constructor(signer: FileUrlSigner) {
    useAttachmentLinkSigner(signer);
  }

  onModuleDestroy(): void {
    useAttachmentLinkSigner(null);
  }
}
