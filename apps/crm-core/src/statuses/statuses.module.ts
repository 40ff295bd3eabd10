import { Module } from '@nestjs/common';
import { SummaryModule } from '../summary/summary.module';
import { StatusesHandler } from './statuses.handler';
import { StatusesRepository } from './statuses.repository';
import { StatusesService } from './statuses.service';

@Module({
  imports: [SummaryModule],
  controllers: [StatusesHandler],
  providers: [StatusesService, StatusesRepository],
  exports: [StatusesService],
})
export class StatusesModule {}
