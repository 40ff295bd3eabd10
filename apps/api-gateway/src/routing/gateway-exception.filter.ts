import { Catch, Inject, NotFoundException } from '@nestjs/common';
import { API_PREFIX, ApiError, ErrorName } from '@crm/contracts';
import { ApiExceptionFilter, LOGGER, type ErrorReply } from '@crm/service-kit';
import type { Logger } from 'pino';
import { GatewayConfig } from '../config/gateway.config';

/** The 404 message of a path the gateway does not serve: it names where the API reference is. */
export function routeNotFoundMessage(config: GatewayConfig): string {
  return `No such route; the API reference is at ${config.PUBLIC_URL}${API_PREFIX}/docs`;
}

/**
 * The platform's error filter, except that a path outside the API that nothing serves (Nest's
 * router 404, e.g. GET /v3/contacts) also points to the API reference, like unknown API routes do
 * (ApiEdge). The error name stays resource_not_found. The API edge answers its errors with the
 * same {@link reply}.
 */
@Catch()
export class GatewayExceptionFilter extends ApiExceptionFilter {
  private readonly notFound: string;

  constructor(@Inject(LOGGER) logger: Logger, config: GatewayConfig) {
    super(logger);
    this.notFound = routeNotFoundMessage(config);
  }

  override reply(exception: unknown): ErrorReply {
    return super.reply(exception instanceof NotFoundException ? new ApiError(ErrorName.ResourceNotFound, this.notFound) : exception);
  }
}
