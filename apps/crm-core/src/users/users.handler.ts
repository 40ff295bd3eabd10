import { Controller, UseInterceptors } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { RpcCaller, RpcListFormat, RpcReplyInterceptor, ValidRequest } from '@crm/messaging';
import {
  ONEPAGECRM_USERS_LIST,
  Subjects,
  type Caller,
  type GetUserReply,
  type GetUserRequest,
  type ListFormatChoice,
  type ListUsersRequest,
  type UpdateUserRequest,
} from '@crm/contracts';
import { ListFormatsService } from '../accounts/list-formats.service';
import { UsersService } from './users.service';

@Controller()
@UseInterceptors(RpcReplyInterceptor)
export class UsersHandler {
  constructor(
    private readonly users: UsersService,
    private readonly lists: ListFormatsService,
  ) {}

  @MessagePattern(Subjects.UsersGet)
  get(@RpcCaller() caller: Caller, @ValidRequest() request: GetUserRequest): Promise<GetUserReply> {
    return this.users.get(caller, request);
  }

  @MessagePattern(Subjects.UsersList)
  list(@RpcCaller() caller: Caller, @ValidRequest() request: ListUsersRequest, @RpcListFormat() choice?: ListFormatChoice) {
    return this.lists.answer(caller, choice, request, (page) => this.users.list(caller, page), ONEPAGECRM_USERS_LIST);
  }

  @MessagePattern(Subjects.UsersUpdate)
  update(@RpcCaller() caller: Caller, @ValidRequest() request: UpdateUserRequest): Promise<GetUserReply> {
    return this.users.update(caller, request);
  }
}
