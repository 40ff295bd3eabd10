import { ApiError, ErrorName, errorEnvelope } from '@crm/contracts';
import type { NextFunction, Request, Response } from 'express';
import type { IncomingHttpHeaders } from 'node:http';

/** `application/json`, or any `+json` type (`application/merge-patch+json`), with any parameters. */
export function isJsonContentType(header: string | undefined): boolean {
  if (!header) return false;
  const semicolon = header.indexOf(';');
  const type = (semicolon < 0 ? header : header.slice(0, semicolon)).trim().toLowerCase();
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}

function hasBody(headers: IncomingHttpHeaders): boolean {
  const length = headers['content-length'];
  if (length !== undefined) return length !== '0';
  return headers['transfer-encoding'] !== undefined;
}

/**
 * A request body that is not JSON answers 415 with a hint, instead of being read as an empty body
 * (a form-encoded or text body would otherwise create a record from nothing but the path).
 */
export function requireJsonBodies() {
  return (req: Request, res: Response, next: NextFunction): void => {
    const error = nonJsonBodyError(req.headers);
    if (!error) return next();
    const { http, body } = errorEnvelope(error);
    res.status(http).json(body);
  };
}

/** The 415 refusal of a request whose headers announce a body that is not JSON, if they do. */
export function nonJsonBodyError(headers: IncomingHttpHeaders): ApiError | undefined {
  if (!hasBody(headers) || isJsonContentType(headers['content-type'])) return undefined;
  const sent = headers['content-type'] ? `got ${headers['content-type'].slice(0, 100)}` : 'no Content-Type was sent';
  return new ApiError(ErrorName.UnsupportedMediaType, `The request body must be JSON with Content-Type: application/json (${sent})`, {
    'Content-Type': 'must be application/json',
  });
}
