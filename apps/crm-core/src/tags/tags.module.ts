import { Module } from '@nestjs/common';
import { SummaryModule } from '../summary/summary.module';
import { TagsHandler } from './tags.handler';
import { TagsRepository } from './tags.repository';
import { TagsService } from './tags.service';

@Module({
  imports: [SummaryModule],
  controllers: [TagsHandler],
  providers: [TagsService, TagsRepository],
  exports: [TagsService],
})
export class TagsModule {}
