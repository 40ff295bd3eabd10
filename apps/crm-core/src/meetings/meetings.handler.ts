import { Controller, UseInterceptors } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { RpcCaller, RpcReplyInterceptor, ValidRequest } from '@crm/messaging';
import {
  Subjects,
  type MeetingIdRequest,
  type Caller,
  type CreateMeetingRequest,
  type ListMeetingsRequest,
  type UpdateMeetingRequest,
} from '@crm/contracts';
import { MeetingsService } from './meetings.service';

@Controller()
@UseInterceptors(RpcReplyInterceptor)
export class MeetingsHandler {
  constructor(private readonly meetings: MeetingsService) {}

  @MessagePattern(Subjects.MeetingsList)
  list(@RpcCaller() caller: Caller, @ValidRequest() request: ListMeetingsRequest) {
    return this.meetings.list(caller, request);
  }

  @MessagePattern(Subjects.MeetingsGet)
  get(@RpcCaller() caller: Caller, @ValidRequest() request: MeetingIdRequest) {
    return this.meetings.get(caller, request);
  }

  @MessagePattern(Subjects.MeetingsCreate)
  create(@RpcCaller() caller: Caller, @ValidRequest() request: CreateMeetingRequest) {
    return this.meetings.create(caller, request);
  }

  @MessagePattern(Subjects.MeetingsUpdate)
  update(@RpcCaller() caller: Caller, @ValidRequest() request: UpdateMeetingRequest) {
    return this.meetings.update(caller, request);
  }

  @MessagePattern(Subjects.MeetingsDelete)
  delete(@RpcCaller() caller: Caller, @ValidRequest() request: MeetingIdRequest) {
    return this.meetings.delete(caller, request);
  }
}
