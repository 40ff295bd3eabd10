import { Module } from '@nestjs/common';
import { FiltersHandler } from './filters.handler';
import { FiltersService } from './filters.service';

/** Saved filters; the SQL of a filter for GET /contacts and GET /deals is `savedFilterCondition` (filter-sql.ts). */
@Module({ controllers: [FiltersHandler], providers: [FiltersService], exports: [FiltersService] })
export class FiltersModule {}
