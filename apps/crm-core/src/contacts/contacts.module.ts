import { Module } from '@nestjs/common';
import { FiltersModule } from '../filters/filters.module';
import { SummaryModule } from '../summary/summary.module';
import { ContactTagsRepository } from './contact-tags.repository';
import { ContactsHandler } from './contacts.handler';
import { ContactsRepository } from './contacts.repository';
import { ContactsService } from './contacts.service';

/** Contacts: the handler, the service and their repositories; exports the service (the companies module uses it). */
@Module({
  imports: [SummaryModule, FiltersModule],
  controllers: [ContactsHandler],
  providers: [ContactsService, ContactsRepository, ContactTagsRepository],
  exports: [ContactsService],
})
export class ContactsModule {}
