import { Module } from '@nestjs/common';
import { NotificationsModule } from '../notifications/notifications.module';
import { CallsHandler } from './calls.handler';
import { CallsRepository } from './calls.repository';
import { CallsService } from './calls.service';

/** Calls logged with contacts (spec "Call"). */
@Module({
  imports: [NotificationsModule],
  controllers: [CallsHandler],
  providers: [CallsService, CallsRepository],
  exports: [CallsService],
})
export class CallsModule {}
