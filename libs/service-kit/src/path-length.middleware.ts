import { ApiError, ErrorName, errorEnvelope } from '@crm/contracts';
import type { NextFunction, Request, Response } from 'express';

/** Longest request path served, in bytes (the longest API path with its ids is about 100). */
export const MAX_PATH_BYTES = 2048;

/**
 * Refuses a path longer than `maxBytes` before any routing looks at it: 404 resource_not_found in
 * the error envelope (no route is that long; decisions.md "Request input bounds, routing and
 * metrics"). The query string is not counted.
 */
export function pathLengthLimit(maxBytes = MAX_PATH_BYTES) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const error = pathLengthError(req.originalUrl ?? req.url, maxBytes);
    if (!error) return next();
    const { http, body } = errorEnvelope(error);
    res.status(http).json(body);
  };
}

/** The refusal of a request target whose path (the query aside) is longer than `maxBytes`, if it is. */
export function pathLengthError(url: string, maxBytes = MAX_PATH_BYTES): ApiError | undefined {
  const queryAt = url.indexOf('?');
  const path = queryAt < 0 ? url : url.slice(0, queryAt);
  if (Buffer.byteLength(path) <= maxBytes) return undefined;
  return new ApiError(ErrorName.ResourceNotFound, `No such route (paths are at most ${maxBytes} bytes)`);
}
