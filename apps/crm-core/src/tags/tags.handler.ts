import { Controller, UseInterceptors } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { RpcCaller, RpcReplyInterceptor, ValidRequest } from '@crm/messaging';
import { Subjects, type Caller, type ListTagsRequest, type TagNameRequest } from '@crm/contracts';
import { TagsService } from './tags.service';

@Controller()
@UseInterceptors(RpcReplyInterceptor)
export class TagsHandler {
  constructor(private readonly tags: TagsService) {}

  @MessagePattern(Subjects.TagsList)
  list(@RpcCaller() caller: Caller, @ValidRequest() request: ListTagsRequest) {
    return this.tags.list(caller, request);
  }

  @MessagePattern(Subjects.TagsDelete)
  delete(@RpcCaller() caller: Caller, @ValidRequest() request: TagNameRequest) {
    return this.tags.delete(caller, request);
  }
}
