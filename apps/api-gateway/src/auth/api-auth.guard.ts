import { Injectable } from '@nestjs/common';
import { AuthGuard } from '@nestjs/passport';
import { ApiError, ErrorName } from '@crm/contracts';
import { API_CREDENTIALS_STRATEGY } from './api-credentials.strategy';

/** Authenticates every API route; the strategy's own error (with its error_name) goes out as is. */
@Injectable()
export class ApiAuthGuard extends AuthGuard(API_CREDENTIALS_STRATEGY) {
  override handleRequest<TUser>(err: unknown, user: TUser | false): TUser {
    if (err) throw err;
    if (!user) throw new ApiError(ErrorName.AuthorizationDataNotFound);
    return user;
  }
}
