import type { NextFunction, Request, Response } from 'express';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { BrowserOriginPolicy } from './browser-origins';

const ALLOWED_METHODS = 'GET, POST, PUT, PATCH, DELETE';
const ALLOWED_HEADERS = 'Authorization, Content-Type, Idempotency-Key, If-Match, If-None-Match, X-Request-Id, Mcp-Protocol-Version';
const EXPOSED_HEADERS =
  'ETag, Idempotent-Replayed, Retry-After, WWW-Authenticate, X-Request-Id, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset';

/** Paths browser apps call: the API and the MCP endpoint. */
export const isCorsPath = (path: string) => path === '/mcp' || path === '/api/v3' || path.startsWith('/api/v3/');

/**
 * CORS for browser apps holding a bearer token: an allowed origin's preflight answers 204 with the
 * methods and headers the API takes, and its requests carry Access-Control-Allow-Origin. Other
 * origins get no CORS headers (the browser then withholds the answer). Credentials are never
 * cookies, so Allow-Credentials is never sent; API keys are refused from other origins by the
 * authentication (ApiAuthenticator).
 */
export function corsMiddleware(policy: BrowserOriginPolicy) {
  return (req: Request, res: Response, next: NextFunction): void => {
    if (!req.headers.origin || !isCorsPath(req.path)) return next();
    applyCors(policy, req, res).then(
      (answered) => answered || next(),
      (error: unknown) => next(error),
    );
  };
}

/**
 * The CORS headers of a request from a browser origin (`Origin` sent) to a CORS path; a preflight
 * is answered here (204), and then this resolves true.
 */
export async function applyCors(policy: BrowserOriginPolicy, req: IncomingMessage, res: ServerResponse): Promise<boolean> {
  const origin = req.headers.origin!;
  const preflight = req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined;
  appendVary(res, 'Origin');
  const allowed = await policy.allows(origin);
  if (allowed) {
    res.setHeader('Access-Control-Allow-Origin', origin);
    res.setHeader('Access-Control-Expose-Headers', EXPOSED_HEADERS);
  }
  if (!preflight) return false;
  if (allowed) {
    res.setHeader('Access-Control-Allow-Methods', ALLOWED_METHODS);
    res.setHeader('Access-Control-Allow-Headers', ALLOWED_HEADERS);
    res.setHeader('Access-Control-Max-Age', '600');
  }
  res.statusCode = 204;
  res.end();
  return true;
}

/** Adds `field` to the Vary header (as Express's res.vary). */
function appendVary(res: ServerResponse, field: string): void {
  const current = res.getHeader('Vary');
  if (current === undefined) return void res.setHeader('Vary', field);
  const fields = String(current)
    .split(',')
    .map((name) => name.trim().toLowerCase());
  if (!fields.includes('*') && !fields.includes(field.toLowerCase())) res.setHeader('Vary', `${String(current)}, ${field}`);
}
