import { Module } from '@nestjs/common';
import { RelationshipTypesHandler } from './relationship-types.handler';
import { RelationshipTypesService } from './relationship-types.service';

/** Relationship types (issue 4); relationships between contacts arrive with contacts. */
@Module({
  controllers: [RelationshipTypesHandler],
  providers: [RelationshipTypesService],
})
export class RelationshipTypesModule {}
