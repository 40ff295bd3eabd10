import { Module } from '@nestjs/common';
import { PredefinedActionsHandler } from '../predefined-actions/predefined-actions.handler';
import { PredefinedActionsService } from '../predefined-actions/predefined-actions.service';
import { RelationshipTypesHandler } from './relationship-types.handler';
import { RelationshipTypesService } from './relationship-types.service';

/** Relationship types and predefined actions (issue 4); relationships between contacts arrive with contacts. */
@Module({
  controllers: [RelationshipTypesHandler, PredefinedActionsHandler],
  providers: [RelationshipTypesService, PredefinedActionsService],
})
export class RelationshipTypesModule {}
