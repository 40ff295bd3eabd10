import { Module } from '@nestjs/common';
import { NotesHandler } from './notes.handler';
import { NotesRepository } from './notes.repository';
import { NotesService } from './notes.service';

/** Notes logged on contacts (spec "POST /notes"). */
@Module({ controllers: [NotesHandler], providers: [NotesService, NotesRepository], exports: [NotesService] })
export class NotesModule {}
