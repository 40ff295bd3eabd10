import { Module } from '@nestjs/common';
import { CompaniesHandler } from './companies.handler';
import { CompaniesService } from './companies.service';

/** Companies: GET /companies, GET|PUT|PATCH /companies/{id}. */
@Module({ controllers: [CompaniesHandler], providers: [CompaniesService] })
export class CompaniesModule {}
