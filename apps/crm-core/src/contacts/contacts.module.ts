import { Module } from '@nestjs/common';
import { CompaniesModule } from '../companies/companies.module';
import { SummaryModule } from '../summary/summary.module';
import { ContactsHandler } from './contacts.handler';
import { ContactsService } from './contacts.service';

/** Contacts and companies (issue 3): handlers, services, the contact wrapper. */
@Module({
  imports: [SummaryModule, CompaniesModule],
  controllers: [ContactsHandler],
  providers: [ContactsService],
})
export class ContactsModule {}
