import { Controller, UseInterceptors } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { RpcReplyInterceptor } from '@crm/messaging';
import { Subjects, type GetUserReply, type ListUsersReply, type RpcRequest } from '@crm/contracts';
import { UsersService } from './users.service';

@Controller()
@UseInterceptors(RpcReplyInterceptor)
export class UsersHandler {
  constructor(private readonly users: UsersService) {}

  @MessagePattern(Subjects.UsersGet)
  get(@Payload() request: RpcRequest): Promise<GetUserReply> {
    return this.users.get(request.caller, request.payload);
  }

  @MessagePattern(Subjects.UsersList)
  list(@Payload() request: RpcRequest): Promise<ListUsersReply> {
    return this.users.list(request.caller, request.payload);
  }
}
