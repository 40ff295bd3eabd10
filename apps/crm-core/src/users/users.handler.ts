import { Controller, UseInterceptors } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { RpcCaller, RpcReplyInterceptor, ValidRequest } from '@crm/messaging';
import {
  Subjects,
  type Caller,
  type GetUserReply,
  type GetUserRequest,
  type ListUsersReply,
  type ListUsersRequest,
  type UpdateUserRequest,
} from '@crm/contracts';
import { UsersService } from './users.service';

@Controller()
@UseInterceptors(RpcReplyInterceptor)
export class UsersHandler {
  constructor(private readonly users: UsersService) {}

  @MessagePattern(Subjects.UsersGet)
  get(@RpcCaller() caller: Caller, @ValidRequest() request: GetUserRequest): Promise<GetUserReply> {
    return this.users.get(caller, request);
  }

  @MessagePattern(Subjects.UsersList)
  list(@RpcCaller() caller: Caller, @ValidRequest() request: ListUsersRequest): Promise<ListUsersReply> {
    return this.users.list(caller, request);
  }

  @MessagePattern(Subjects.UsersUpdate)
  update(@RpcCaller() caller: Caller, @ValidRequest() request: UpdateUserRequest): Promise<GetUserReply> {
    return this.users.update(caller, request);
  }
}
