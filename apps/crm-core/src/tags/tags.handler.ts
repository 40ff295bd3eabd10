import { Controller, UseInterceptors } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { RpcReplyInterceptor } from '@crm/messaging';
import { Subjects, type RpcRequest } from '@crm/contracts';
import { TagsService } from './tags.service';

@Controller()
@UseInterceptors(RpcReplyInterceptor)
export class TagsHandler {
  constructor(private readonly tags: TagsService) {}

  @MessagePattern(Subjects.TagsList)
  list(@Payload() request: RpcRequest) {
    return this.tags.list(request.caller, request.payload);
  }

  @MessagePattern(Subjects.TagsDelete)
  delete(@Payload() request: RpcRequest) {
    return this.tags.delete(request.caller, request.payload);
  }
}
