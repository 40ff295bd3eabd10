import { Module } from '@nestjs/common';
import { PredefinedItemsHandler } from './predefined-items.handler';
import { PredefinedItemsRepository } from './predefined-items.repository';
import { PredefinedItemsService } from './predefined-items.service';

/** Predefined items (deal line-item templates) and their groups. */
@Module({
  controllers: [PredefinedItemsHandler],
  providers: [PredefinedItemsService, PredefinedItemsRepository],
  exports: [PredefinedItemsService],
})
export class PredefinedItemsModule {}
