import { Controller, UseInterceptors } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { RpcReplyInterceptor, reply } from '@crm/messaging';
import { Subjects, type RpcRequest } from '@crm/contracts';
import { MeetingsService } from './meetings.service';

@Controller()
@UseInterceptors(RpcReplyInterceptor)
export class MeetingsHandler {
  constructor(private readonly meetings: MeetingsService) {}

  @MessagePattern(Subjects.MeetingsList)
  list(@Payload() request: RpcRequest) {
    return this.meetings.list(request.caller, request.payload);
  }

  @MessagePattern(Subjects.MeetingsGet)
  get(@Payload() request: RpcRequest) {
    return this.meetings.get(request.caller, request.payload);
  }

  @MessagePattern(Subjects.MeetingsCreate)
  async create(@Payload() request: RpcRequest) {
    return reply(await this.meetings.create(request.caller, request.payload), {
      httpStatus: 201,
    });
  }

  @MessagePattern(Subjects.MeetingsUpdate)
  update(@Payload() request: RpcRequest) {
    return this.meetings.update(request.caller, request.payload);
  }

  @MessagePattern(Subjects.MeetingsDelete)
  delete(@Payload() request: RpcRequest) {
    return this.meetings.delete(request.caller, request.payload);
  }
}
