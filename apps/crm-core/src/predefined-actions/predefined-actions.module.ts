import { Module } from '@nestjs/common';
import { PredefinedActionsHandler } from './predefined-actions.handler';
import { PredefinedActionsRepository } from './predefined-actions.repository';
import { PredefinedActionsService } from './predefined-actions.service';

@Module({
  controllers: [PredefinedActionsHandler],
  providers: [PredefinedActionsService, PredefinedActionsRepository],
  exports: [PredefinedActionsService],
})
export class PredefinedActionsModule {}
