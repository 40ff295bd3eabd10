import { Module } from '@nestjs/common';
import { FieldsModule } from '../fields/fields.module';
import { FiltersModule } from '../filters/filters.module';
import { PipelinesModule } from '../pipelines/pipelines.module';
import { PredefinedActionsModule } from '../predefined-actions/predefined-actions.module';
import { RelationshipTypesModule } from '../relationship-types/relationship-types.module';
import { SummaryModule } from '../summary/summary.module';
import { UsersModule } from '../users/users.module';
import { BootstrapHandler } from './bootstrap.handler';
import { BootstrapRepository } from './bootstrap.repository';
import { BootstrapService } from './bootstrap.service';

/** GET /bootstrap: reads the account's configuration through the services of its folders. */
@Module({
  imports: [UsersModule, FieldsModule, FiltersModule, PipelinesModule, PredefinedActionsModule, RelationshipTypesModule, SummaryModule],
  controllers: [BootstrapHandler],
  providers: [BootstrapService, BootstrapRepository],
  exports: [BootstrapService],
})
export class BootstrapModule {}
