import { Controller, UseInterceptors } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { RpcReplyInterceptor, reply } from '@crm/messaging';
import { Subjects, type RpcRequest } from '@crm/contracts';
import { NotesService } from './notes.service';

@Controller()
@UseInterceptors(RpcReplyInterceptor)
export class NotesHandler {
  constructor(private readonly notes: NotesService) {}

  @MessagePattern(Subjects.NotesList)
  list(@Payload() request: RpcRequest) {
    return this.notes.list(request.caller, request.payload);
  }

  @MessagePattern(Subjects.NotesGet)
  get(@Payload() request: RpcRequest) {
    return this.notes.get(request.caller, request.payload);
  }

  @MessagePattern(Subjects.NotesCreate)
  async create(@Payload() request: RpcRequest) {
    return reply(await this.notes.create(request.caller, request.payload), {
      httpStatus: 201,
    });
  }

  @MessagePattern(Subjects.NotesUpdate)
  update(@Payload() request: RpcRequest) {
    return this.notes.update(request.caller, request.payload);
  }

  @MessagePattern(Subjects.NotesDelete)
  delete(@Payload() request: RpcRequest) {
    return this.notes.delete(request.caller, request.payload);
  }
}
