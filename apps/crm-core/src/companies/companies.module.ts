import { Module } from '@nestjs/common';
import { ContactsModule } from '../contacts/contacts.module';
import { CompaniesHandler } from './companies.handler';
import { CompaniesRepository } from './companies.repository';
import { CompaniesService } from './companies.service';

/** Companies: GET /companies, GET|PUT|PATCH /companies/{id}. Uses the contacts module for what a change does to a company's contacts. */
@Module({
  imports: [ContactsModule],
  controllers: [CompaniesHandler],
  providers: [CompaniesService, CompaniesRepository],
  exports: [CompaniesService],
})
export class CompaniesModule {}
