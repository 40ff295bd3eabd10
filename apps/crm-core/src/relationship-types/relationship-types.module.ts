import { Module } from '@nestjs/common';

/** Relationship types, predefined actions and predefined action groups (issue 4). */
@Module({})
export class RelationshipTypesModule {}
