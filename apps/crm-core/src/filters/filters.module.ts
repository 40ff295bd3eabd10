import { Module } from '@nestjs/common';
import { FiltersHandler } from './filters.handler';
import { FiltersRepository } from './filters.repository';
import { FiltersService } from './filters.service';

/** Saved filters; the SQL a filter stands for on GET /contacts and GET /deals is `savedFilterSql` (filters.repository.ts). */
@Module({ controllers: [FiltersHandler], providers: [FiltersService, FiltersRepository], exports: [FiltersService] })
export class FiltersModule {}
