import { Controller, UseInterceptors } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { RpcCaller, RpcReplyInterceptor, ValidRequest } from '@crm/messaging';
import {
  Subjects,
  type NoteIdRequest,
  type Caller,
  type CreateNoteRequest,
  type ListNotesRequest,
  type UpdateNoteRequest,
} from '@crm/contracts';
import { NotesService } from './notes.service';

@Controller()
@UseInterceptors(RpcReplyInterceptor)
export class NotesHandler {
  constructor(private readonly notes: NotesService) {}

  @MessagePattern(Subjects.NotesList)
  list(@RpcCaller() caller: Caller, @ValidRequest() request: ListNotesRequest) {
    return this.notes.list(caller, request);
  }

  @MessagePattern(Subjects.NotesGet)
  get(@RpcCaller() caller: Caller, @ValidRequest() request: NoteIdRequest) {
    return this.notes.get(caller, request);
  }

  @MessagePattern(Subjects.NotesCreate)
  create(@RpcCaller() caller: Caller, @ValidRequest() request: CreateNoteRequest) {
    return this.notes.create(caller, request);
  }

  @MessagePattern(Subjects.NotesUpdate)
  update(@RpcCaller() caller: Caller, @ValidRequest() request: UpdateNoteRequest) {
    return this.notes.update(caller, request);
  }

  @MessagePattern(Subjects.NotesDelete)
  delete(@RpcCaller() caller: Caller, @ValidRequest() request: NoteIdRequest) {
    return this.notes.delete(caller, request);
  }
}
