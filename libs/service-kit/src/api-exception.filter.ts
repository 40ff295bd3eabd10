import { ArgumentsHost, Catch, HttpException, Inject, type ExceptionFilter } from '@nestjs/common';
import { ApiError, ErrorName, errorEnvelope, type ErrorEnvelope } from '@crm/contracts';
import type { Response } from 'express';
import type { Logger } from 'pino';
import { LOGGER } from './tokens';
import { isTransientDependencyError } from './transient-errors';

/** Maps a framework or body-parser error to the platform's error. */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  const status =
    error instanceof HttpException
      ? error.getStatus()
      : ((error as { status?: number; statusCode?: number })?.status ?? (error as { statusCode?: number })?.statusCode);
  // Nest wraps body-parser errors in an HttpException whose cause carries the parser's type.
  const type = (error as { type?: string })?.type ?? (error as { cause?: { type?: string } })?.cause?.type;
  if (type === 'entity.too.large' || status === 413)
    return ApiError.invalid({ body: 'must not exceed 1 MiB' }, 'The request body is too large (at most 1 MiB)');
  if (type === 'entity.parse.failed') return ApiError.invalid({ body: 'must be valid JSON' }, 'The request body is not valid JSON');
  if (type === 'encoding.unsupported' || type === 'charset.unsupported') return ApiError.invalid({ body: 'unsupported encoding' });
  if (status === 404) return new ApiError(ErrorName.ResourceNotFound, 'No such route');
  if (status === 405) return new ApiError(ErrorName.MethodNotAllowed);
  if (status === 401) return new ApiError(ErrorName.AuthorizationDataNotFound);
  if (status === 403) return new ApiError(ErrorName.NoPermission);
  if (typeof status === 'number' && status >= 400 && status < 500) return ApiError.invalid({});
  if (isTransientDependencyError(error))
    return new ApiError(ErrorName.ServiceUnavailable, 'A backing service is unavailable for the moment; retry shortly');
  return new ApiError(ErrorName.InternalServerError);
}

/** What an error answers: status, headers and the error envelope. */
export interface ErrorReply {
  status: number;
  headers: Record<string, string>;
  body: ErrorEnvelope;
}

/**
 * The answer to an error, in the spec's error envelope; an unexpected error is logged with its
 * stack here and never sent to the client.
 */
export function errorReply(exception: unknown, logger: Logger): ErrorReply {
  const error = toApiError(exception);
  if (error.errorName === ErrorName.InternalServerError && !(exception instanceof ApiError)) {
    logger.error({ err: exception }, 'unhandled error');
  } else if (error.errorName === ErrorName.ServiceUnavailable && !(exception instanceof ApiError)) {
    logger.warn({ detail: (exception as Error)?.message }, 'dependency unavailable: answered 503');
  }
  const { http, body } = errorEnvelope(error);
  const headers: Record<string, string> = error.errorName === ErrorName.ServiceUnavailable ? { 'Retry-After': '1' } : {};
  return { status: http, headers: { ...headers, ...error.headers }, body };
}

/** Every error an HTTP service answers goes out as {@link errorReply} says. */
@Catch()
export class ApiExceptionFilter implements ExceptionFilter {
  constructor(@Inject(LOGGER) private readonly logger: Logger) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const res = host.switchToHttp().getResponse<Response>();
    const reply = this.reply(exception);
    if (res.headersSent) {
      res.end();
      return;
    }
    for (const [name, value] of Object.entries(reply.headers)) res.setHeader(name, value);
    res.status(reply.status).json(reply.body);
  }

  /** The answer to `exception` (a service's filter may map some exceptions first). */
  reply(exception: unknown): ErrorReply {
    return errorReply(exception, this.logger);
  }
}
