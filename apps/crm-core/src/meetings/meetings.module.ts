import { Module } from '@nestjs/common';
import { MeetingsHandler } from './meetings.handler';
import { MeetingsRepository } from './meetings.repository';
import { MeetingsService } from './meetings.service';

/** Meetings with contacts (decisions.md "Deals and actions"). */
@Module({ controllers: [MeetingsHandler], providers: [MeetingsService, MeetingsRepository], exports: [MeetingsService] })
export class MeetingsModule {}
