import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { SummaryModule } from '../summary/summary.module';
import { LeadSourcesHandler } from './lead-sources.handler';
import { LeadSourcesRepository } from './lead-sources.repository';
import { LeadSourcesService } from './lead-sources.service';

@Module({
  imports: [SummaryModule, AccountsModule],
  controllers: [LeadSourcesHandler],
  providers: [LeadSourcesService, LeadSourcesRepository],
  exports: [LeadSourcesService],
})
export class LeadSourcesModule {}
