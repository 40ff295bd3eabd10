import { Module, type DynamicModule } from '@nestjs/common';
import { ConfigModule } from '@crm/config';
import { DatabaseModule } from '@crm/database';
import { ServiceKitModule, type ServiceKitOptions } from '@crm/service-kit';
import { StorageModule } from '@crm/storage';
import { AccountsModule } from './accounts/accounts.module';
import { ActionsModule } from './actions/actions.module';
import { AttachmentsModule } from './attachments/attachments.module';
import { BootstrapModule } from './bootstrap/bootstrap.module';
import { CallsModule } from './calls/calls.module';
import { CompaniesModule } from './companies/companies.module';
import { ContactRelationshipsModule } from './contact-relationships/contact-relationships.module';
import { ContactsModule } from './contacts/contacts.module';
import { CountriesModule } from './countries/countries.module';
import type { CrmCoreConfig } from './config/crm-core.config';
import { crmDataSource } from './database/crm-data-source';
import { DealsModule } from './deals/deals.module';
import { FieldsModule } from './fields/fields.module';
import { FiltersModule } from './filters/filters.module';
import { IdempotencyModule } from './idempotency/idempotency.module';
import { LeadSourcesModule } from './lead-sources/lead-sources.module';
import { MeetingsModule } from './meetings/meetings.module';
import { NotesModule } from './notes/notes.module';
import { NotificationsModule } from './notifications/notifications.module';
import { OutboxModule } from './outbox/outbox.module';
import { PipelinesModule } from './pipelines/pipelines.module';
import { ContactDocumentsModule } from './read-models/contact-documents.module';
import { PredefinedActionsModule } from './predefined-actions/predefined-actions.module';
import { PredefinedItemsModule } from './predefined-items/predefined-items.module';
import { ReplicaReadsModule } from './database/replica-reads.module';
import { RelationshipTypesModule } from './relationship-types/relationship-types.module';
import { StatusesModule } from './statuses/statuses.module';
import { SummaryModule } from './summary/summary.module';
import { TagsModule } from './tags/tags.module';
import { UsersModule } from './users/users.module';

@Module({})
export class AppModule {
  static forRoot(config: CrmCoreConfig, kit: ServiceKitOptions): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ServiceKitModule.forRoot(kit),
        ConfigModule.forRoot(config),
        DatabaseModule.forRoot(() => crmDataSource(config)),
        ReplicaReadsModule,
        StorageModule.forRoot(config),
        AccountsModule,
        UsersModule,
        FieldsModule,
        RelationshipTypesModule,
        PredefinedActionsModule,
        PredefinedItemsModule,
        CountriesModule,
        OutboxModule,
        IdempotencyModule,
        ContactDocumentsModule,
        SummaryModule,
        StatusesModule,
        LeadSourcesModule,
        TagsModule,
        FiltersModule,
        PipelinesModule,
        ContactRelationshipsModule,
        BootstrapModule,
        ContactsModule,
        CompaniesModule,
        DealsModule,
        NotesModule,
        NotificationsModule,
        CallsModule,
        MeetingsModule,
        ActionsModule,
        AttachmentsModule,
      ],
    };
  }
}
