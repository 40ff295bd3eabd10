import { Module } from '@nestjs/common';
import { BootstrapHandler } from '../bootstrap/bootstrap.handler';
import { BootstrapService } from '../bootstrap/bootstrap.service';
import { ContactRelationshipsHandler } from '../contact-relationships/contact-relationships.handler';
import { ContactRelationshipsService } from '../contact-relationships/contact-relationships.service';
import { FieldsModule } from '../fields/fields.module';
import { FiltersModule } from '../filters/filters.module';
import { LeadSourcesHandler } from '../lead-sources/lead-sources.handler';
import { LeadSourcesService } from '../lead-sources/lead-sources.service';
import { PipelinesHandler } from '../pipelines/pipelines.handler';
import { PipelinesService } from '../pipelines/pipelines.service';
import { PredefinedActionsService } from '../predefined-actions/predefined-actions.service';
import { RelationshipTypesService } from '../relationship-types/relationship-types.service';
import { StatusesHandler } from '../statuses/statuses.handler';
import { StatusesService } from '../statuses/statuses.service';
import { SummaryModule } from '../summary/summary.module';
import { TagsHandler } from '../tags/tags.handler';
import { TagsService } from '../tags/tags.service';
import { UsersModule } from '../users/users.module';

/**
 * Statuses, lead sources, tags, saved filters, contact relationships, pipelines, call results
 * and bootstrap (issue 4). Bootstrap reads predefined actions and relationship types through
 * their (stateless) services, provided here as well.
 */
@Module({
  imports: [SummaryModule, FiltersModule, FieldsModule, UsersModule],
  controllers: [StatusesHandler, LeadSourcesHandler, TagsHandler, ContactRelationshipsHandler, PipelinesHandler, BootstrapHandler],
  providers: [
    StatusesService,
    LeadSourcesService,
    TagsService,
    ContactRelationshipsService,
    PipelinesService,
    BootstrapService,
    PredefinedActionsService,
    RelationshipTypesService,
  ],
  exports: [SummaryModule, FiltersModule],
})
export class AccountConfigModule {}
