import { Module } from '@nestjs/common';
import { NotificationsModule } from '../notifications/notifications.module';
import { MeetingsHandler } from './meetings.handler';
import { MeetingsRepository } from './meetings.repository';
import { MeetingsService } from './meetings.service';

/** Meetings with contacts (decisions.md "Deals and actions"). */
@Module({
  imports: [NotificationsModule],
  controllers: [MeetingsHandler],
  providers: [MeetingsService, MeetingsRepository],
  exports: [MeetingsService],
})
export class MeetingsModule {}
