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

/**
 * Turns whatever a message handler returns or throws into an {@link RpcReply}: errors cross NATS
 * as data. An unexpected error is logged here with its stack and leaves as internal_server_error.
 */
@Injectable()
export class RpcReplyInterceptor implements NestInterceptor {
  constructor(@Inject(LOGGER) private readonly logger: Logger) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<RpcReply> {
    const pattern = context.switchToRpc().getContext<{ getSubject?: () => string }>()?.getSubject?.();
    return next.handle().pipe(
      map((result: unknown) => (isRpcReply(result) ? result : { ok: true as const, data: result })),
      catchError((error: unknown) => {
        if (error instanceof ApiError) return of<RpcReply>({ ok: false, error: error.toData() });
        if (isTransientDependencyError(error)) {
          this.logger.warn({ subject: pattern, detail: (error as Error).message }, 'dependency unavailable: replying service_unavailable');
          return of<RpcReply>({
            ok: false,
            error: new ApiError(ErrorName.ServiceUnavailable, 'A backing service is unavailable for the moment; retry shortly').toData(),
          });
        }
        this.logger.error({ err: error, subject: pattern }, 'unhandled error in message handler');
        return of<RpcReply>({ ok: false, error: new ApiError(ErrorName.InternalServerError).toData() });
      }),
    );
  }
}
