import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { UsersHandler } from './users.handler';
import { UsersRepository } from './users.repository';
import { UsersService } from './users.service';

@Module({
  imports: [AccountsModule],
  controllers: [UsersHandler],
  providers: [UsersService, UsersRepository],
  exports: [UsersService],
})
export class UsersModule {}
