import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { SummaryModule } from '../summary/summary.module';
import { StatusesHandler } from './statuses.handler';
import { StatusesRepository } from './statuses.repository';
import { StatusesService } from './statuses.service';

@Module({
  imports: [SummaryModule, AccountsModule],
  controllers: [StatusesHandler],
  providers: [StatusesService, StatusesRepository],
  exports: [StatusesService],
})
export class StatusesModule {}
