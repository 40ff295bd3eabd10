import { Module } from '@nestjs/common';
import { NotificationsHandler } from './notifications.handler';
import { NotificationsRepository } from './notifications.repository';
import { NotificationsService } from './notifications.service';

/** The caller's notifications; the service is shared with notes, calls and meetings, which write them. */
@Module({
  controllers: [NotificationsHandler],
  providers: [NotificationsService, NotificationsRepository],
  exports: [NotificationsService],
})
export class NotificationsModule {}
