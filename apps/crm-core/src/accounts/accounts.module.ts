import { Module } from '@nestjs/common';
import { AccountsHandler } from './accounts.handler';
import { AccountsRepository } from './accounts.repository';
import { AccountsService } from './accounts.service';
import { ListFormatsService } from './list-formats.service';

@Module({
  controllers: [AccountsHandler],
  providers: [AccountsService, AccountsRepository, ListFormatsService],
  exports: [AccountsService, ListFormatsService],
})
export class AccountsModule {}
