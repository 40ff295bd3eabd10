import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { SummaryModule } from '../summary/summary.module';
import { PipelinesHandler } from './pipelines.handler';
import { PipelinesRepository } from './pipelines.repository';
import { PipelinesService } from './pipelines.service';

/** Deal and sales pipelines (read-only) and call results. */
@Module({
  imports: [AccountsModule, SummaryModule],
  controllers: [PipelinesHandler],
  providers: [PipelinesService, PipelinesRepository],
  exports: [PipelinesService],
})
export class PipelinesModule {}
