import { Module } from '@nestjs/common';
import { RelationshipTypesHandler } from './relationship-types.handler';
import { RelationshipTypesRepository } from './relationship-types.repository';
import { RelationshipTypesService } from './relationship-types.service';

@Module({
  controllers: [RelationshipTypesHandler],
  providers: [RelationshipTypesService, RelationshipTypesRepository],
  exports: [RelationshipTypesService],
})
export class RelationshipTypesModule {}
