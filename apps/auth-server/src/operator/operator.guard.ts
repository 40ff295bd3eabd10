import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { safeEqual } from '@crm/common';
import { ApiError, ErrorName } from '@crm/contracts';
import type { Request } from 'express';
import { AuthServerConfig } from '../config/auth-server.config';
import { arrivedOnOperatorPort } from './operator-port';

/**
 * `Authorization: Bearer <OPERATOR_TOKEN>`, on the internal OPERATOR_PORT only: on the public port,
 * or with no token configured, the routes do not exist.
 */
@Injectable()
export class OperatorGuard implements CanActivate {
  constructor(private readonly config: AuthServerConfig) {}

  canActivate(context: ExecutionContext): boolean {
    const expected = this.config.OPERATOR_TOKEN;
    const req = context.switchToHttp().getRequest<Request>();
    if (!expected || !arrivedOnOperatorPort(req)) throw new ApiError(ErrorName.ResourceNotFound, 'No such route');
    const header = req.header('authorization') ?? '';
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match)
      throw new ApiError(ErrorName.AuthorizationDataNotFound, 'Send the operator token as Authorization: Bearer <OPERATOR_TOKEN>');
    if (!safeEqual(match[1], expected)) throw new ApiError(ErrorName.InvalidAuthToken, 'The operator token is not valid');
    return true;
  }
}
