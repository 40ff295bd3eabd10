import { Module } from '@nestjs/common';
import { UsersHandler } from './users.handler';
import { UsersRepository } from './users.repository';
import { UsersService } from './users.service';

@Module({
  controllers: [UsersHandler],
  providers: [UsersService, UsersRepository],
  exports: [UsersService],
})
export class UsersModule {}
