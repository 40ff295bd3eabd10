import { isTransientDependencyError, LOGGER } from '@crm/service-kit';
import { Inject, Injectable, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import { ApiError, ErrorName, type RpcReply } from '@crm/contracts';
import type { Logger } from 'pino';
import { catchError, map, of, type Observable } from 'rxjs';

export function isRpcReply(value: unknown): value is RpcReply {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { ok?: unknown }).ok === 'boolean' &&
    ('data' in value || 'error' in value)
  );
}

/** A reply with an HTTP status other than 200 (201 for creates) or with summary blocks. */
export function reply<D>(data: D, options: { httpStatus?: number; summary?: Record<string, unknown> } = {}): RpcReply<D> {
  return { ok: true, data, http_status: options.httpStatus, summary: options.summary };
}

/** A handler's result as a reply: an RpcReply as it is, anything else as its data. */
export function replyOf(result: unknown): RpcReply {
  return isRpcReply(result) ? result : { ok: true, data: result };
}

/**
 * A handler's error as a reply: an ApiError as its data, a dependency that is down as
 * service_unavailable (logged as a warning), anything else logged with its stack and answered
 * internal_server_error without details.
 */
export function replyOfError(error: unknown, subject: string | undefined, logger: Logger): RpcReply {
  if (error instanceof ApiError) return { ok: false, error: error.toData() };
  if (isTransientDependencyError(error)) {
    logger.warn({ subject, detail: (error as Error).message }, 'dependency unavailable: replying service_unavailable');
    return {
      ok: false,
      error: new ApiError(ErrorName.ServiceUnavailable, 'A backing service is unavailable for the moment; retry shortly').toData(),
    };
  }
  logger.error({ err: error, subject }, 'unhandled error in message handler');
  return { ok: false, error: new ApiError(ErrorName.InternalServerError).toData() };
}

/**
 * Declares that a handler class answers with an {@link RpcReply}: whatever it returns or throws
 * crosses NATS as data. NatsRpcServer requires it on every handler and applies
 * {@link replyOf}/{@link replyOfError} itself; as a Nest interceptor it does the same.
 */
@Injectable()
export class RpcReplyInterceptor implements NestInterceptor {
  constructor(@Inject(LOGGER) private readonly logger: Logger) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<RpcReply> {
    const subject = context.switchToRpc().getContext<{ getSubject?: () => string }>()?.getSubject?.();
    return next.handle().pipe(
      map(replyOf),
      catchError((error: unknown) => of(replyOfError(error, subject, this.logger))),
    );
  }
}
