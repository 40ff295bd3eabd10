import { Controller, UseInterceptors } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { RpcCaller, RpcReplyInterceptor, ValidRequest } from '@crm/messaging';
import { Subjects, type Caller, type EmptyRequest, type ListNotificationsRequest, type NotificationIdRequest } from '@crm/contracts';
import { NotificationsService } from './notifications.service';

@Controller()
@UseInterceptors(RpcReplyInterceptor)
export class NotificationsHandler {
  constructor(private readonly notifications: NotificationsService) {}

  @MessagePattern(Subjects.NotificationsList)
  list(@RpcCaller() caller: Caller, @ValidRequest() request: ListNotificationsRequest) {
    return this.notifications.list(caller, request);
  }

  @MessagePattern(Subjects.NotificationsGet)
  get(@RpcCaller() caller: Caller, @ValidRequest() request: NotificationIdRequest) {
    return this.notifications.get(caller, request);
  }

  @MessagePattern(Subjects.NotificationsMarkRead)
  markRead(@RpcCaller() caller: Caller, @ValidRequest() request: NotificationIdRequest) {
    return this.notifications.markRead(caller, request);
  }

  @MessagePattern(Subjects.NotificationsMarkAllRead)
  markAllRead(@RpcCaller() caller: Caller, @ValidRequest() _request: EmptyRequest) {
    return this.notifications.markAllRead(caller);
  }
}
