import { ApiError, ErrorName, errorEnvelope } from '@crm/contracts';
import type { NextFunction, Request, Response } from 'express';

/** `application/json`, or any `+json` type (`application/merge-patch+json`), with any parameters. */
export function isJsonContentType(header: string | undefined): boolean {
  if (!header) return false;
  const semicolon = header.indexOf(';');
  const type = (semicolon < 0 ? header : header.slice(0, semicolon)).trim().toLowerCase();
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}

function hasBody(req: Request): boolean {
  const length = req.headers['content-length'];
  if (length !== undefined) return length !== '0';
  return req.headers['transfer-encoding'] !== undefined;
}

/**
 * A request body that is not JSON answers 415 with a hint, instead of being read as an empty body
 * (a form-encoded or text body would otherwise create a record from nothing but the path).
 */
export function requireJsonBodies() {
  return (req: Request, res: Response, next: NextFunction): void => {
    if (!hasBody(req) || isJsonContentType(req.headers['content-type'])) return next();
    const sent = req.headers['content-type'] ? `got ${req.headers['content-type'].slice(0, 100)}` : 'no Content-Type was sent';
    const error = new ApiError(
      ErrorName.UnsupportedMediaType,
      `The request body must be JSON with Content-Type: application/json (${sent})`,
      { 'Content-Type': 'must be application/json' },
    );
    const { http, body } = errorEnvelope(error);
    res.status(http).json(body);
  };
}
