import { Module } from '@nestjs/common';
import { ActionsHandler } from '../actions/actions.handler';
import { ActionsService } from '../actions/actions.service';
import { CallsHandler } from '../calls/calls.handler';
import { CallsService } from '../calls/calls.service';
import { DealsHandler } from '../deals/deals.handler';
import { DealsService } from '../deals/deals.service';
import { MeetingsHandler } from '../meetings/meetings.handler';
import { MeetingsService } from '../meetings/meetings.service';
import { NotesHandler } from '../notes/notes.handler';
import { NotesService } from '../notes/notes.service';

/** Deals, notes, calls, meetings and actions (issue 5). */
@Module({
  controllers: [DealsHandler, NotesHandler, CallsHandler, MeetingsHandler, ActionsHandler],
  providers: [DealsService, NotesService, CallsService, MeetingsService, ActionsService],
})
export class RecordsModule {}
