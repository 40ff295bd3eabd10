import { Controller, UseInterceptors } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { Subjects, type ChangeAuthKeyReply, type RpcRequest, type TokenStatusReply } from '@crm/contracts';
import { reply, RpcReplyInterceptor } from '@crm/messaging';
import { ApiKeysService } from './api-keys.service';

@Controller()
@UseInterceptors(RpcReplyInterceptor)
export class ApiKeysHandler {
  constructor(private readonly apiKeys: ApiKeysService) {}

  @MessagePattern(Subjects.ApiKeyRotate)
  async rotate(@Payload() request: RpcRequest) {
    return reply<ChangeAuthKeyReply>(await this.apiKeys.rotate(request.caller), { httpStatus: 201 });
  }

  @MessagePattern(Subjects.TokenStatus)
  status(@Payload() payload: unknown): Promise<TokenStatusReply> {
    return this.apiKeys.tokenStatus(payload);
  }
}
