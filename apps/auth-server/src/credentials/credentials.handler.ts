import { Controller, UseInterceptors } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { Subjects, type CredentialRecord } from '@crm/contracts';
import { RpcReplyInterceptor } from '@crm/messaging';
import { CredentialsService } from './credentials.service';

/** The gateway's fallback when Redis cannot answer: authentication never fails open. */
@Controller()
@UseInterceptors(RpcReplyInterceptor)
export class CredentialsHandler {
  constructor(private readonly credentials: CredentialsService) {}

  @MessagePattern(Subjects.CredentialsResolve)
  resolve(@Payload() payload: unknown): Promise<CredentialRecord> {
    return this.credentials.resolve(payload);
  }
}
