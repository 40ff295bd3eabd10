import { Injectable } from '@nestjs/common';
import { AuthGuard } from '@nestjs/passport';
import { ApiError, ErrorName } from '@crm/contracts';
import { API_CREDENTIALS_STRATEGY } from './api-credentials.strategy';

/** Authenticates every API route; the strategy's own error (with its error_name) goes out as is. */
@Injectable()
export class ApiAuthGuard extends AuthGuard(API_CREDENTIALS_STRATEGY) {
  override handleRequest<TUser>(err: unknown, user: TUser | false): TUser {
    const error = err ?? (user ? null : new ApiError(ErrorName.AuthorizationDataNotFound));
    if (!error) return user as TUser;
    if (error instanceof ApiError && error.http === 401) error.withHeader('WWW-Authenticate', challenge(error));
    throw error;
  }
}

const REALM = 'realm="CRM API v3"';

/** RFC 9110 11.6.1: both schemes the API takes; a bad bearer token also says why (RFC 6750). */
function challenge(error: ApiError): string {
  if (error.errorName === ErrorName.InvalidAccessToken) {
    return `Bearer ${REALM}, error="invalid_token", error_description="${error.message.replace(/["\\]/g, '')}"`;
  }
  return `Basic ${REALM}, charset="UTF-8", Bearer ${REALM}`;
}
