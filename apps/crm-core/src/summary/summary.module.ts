import { Module } from '@nestjs/common';
import { SummaryService } from './summary.service';

/** The spec's summary blocks (lead_sources, statuses, tags, contacts_count, team_stream). */
@Module({ providers: [SummaryService], exports: [SummaryService] })
export class SummaryModule {}
