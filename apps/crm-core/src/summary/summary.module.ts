import { Module } from '@nestjs/common';
import { SummaryRepository } from './summary.repository';
import { SummaryService } from './summary.service';

/** Contact counts and the spec's summary blocks (lead_sources, statuses, tags, contacts_count, team_stream). */
@Module({ providers: [SummaryService, SummaryRepository], exports: [SummaryService] })
export class SummaryModule {}
