import { Module, type DynamicModule } from '@nestjs/common';
import { ConfigModule } from '@crm/config';
import { DatabaseModule } from '@crm/database';
import { ServiceKitModule, type ServiceKitOptions } from '@crm/service-kit';
import { AccountConfigModule } from './account-config/account-config.module';
import { AccountsModule } from './accounts/accounts.module';
import { CompaniesModule } from './companies/companies.module';
import { ContactsModule } from './contacts/contacts.module';
import type { CrmCoreConfig } from './config/crm-core.config';
import { crmDataSource } from './database/crm-data-source';
import { FieldsModule } from './fields/fields.module';
import { OutboxModule } from './outbox/outbox.module';
import { RecordsModule } from './records/records.module';
import { RelationshipTypesModule } from './relationship-types/relationship-types.module';
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
        AccountsModule,
        UsersModule,
        FieldsModule,
        RelationshipTypesModule,
        OutboxModule,
        AccountConfigModule,
        ContactsModule,
        CompaniesModule,
        RecordsModule,
      ],
    };
  }
}
