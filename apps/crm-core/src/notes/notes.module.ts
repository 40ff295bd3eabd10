import { Module } from '@nestjs/common';
import { NotificationsModule } from '../notifications/notifications.module';
import { NotesHandler } from './notes.handler';
import { NotesRepository } from './notes.repository';
import { NotesService } from './notes.service';

/** Notes logged on contacts (spec "POST /notes"). */
@Module({
  imports: [NotificationsModule],
  controllers: [NotesHandler],
  providers: [NotesService, NotesRepository],
  exports: [NotesService],
})
export class NotesModule {}
