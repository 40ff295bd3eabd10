import type { NextFunction, Request, Response } from 'express';
import type { BrowserOriginPolicy } from './browser-origins';

const ALLOWED_METHODS = 'GET, POST, PUT, PATCH, DELETE';
const ALLOWED_HEADERS = 'Authorization, Content-Type, Idempotency-Key, If-Match, If-None-Match, X-Request-Id, Mcp-Protocol-Version';
const EXPOSED_HEADERS =
  'ETag, Idempotent-Replayed, Retry-After, WWW-Authenticate, X-Request-Id, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset';

/** Paths browser apps call: the API and the MCP endpoint. */
const isCorsPath = (path: string) => path === '/mcp' || path === '/api/v3' || path.startsWith('/api/v3/');

/**
 * CORS for browser apps holding a bearer token: an allowed origin's preflight answers 204 with the
 * methods and headers the API takes, and its requests carry Access-Control-Allow-Origin. Other
 * origins get no CORS headers (the browser then withholds the answer). Credentials are never
 * cookies, so Allow-Credentials is never sent; API keys are refused from other origins by the
 * authentication strategy.
 */
export function corsMiddleware(policy: BrowserOriginPolicy) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const origin = req.headers.origin;
    if (!origin || !isCorsPath(req.path)) return next();
    const preflight = req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined;
    res.vary('Origin');
    policy.allows(origin).then(
      (allowed) => {
        if (allowed) {
          res.setHeader('Access-Control-Allow-Origin', origin);
          res.setHeader('Access-Control-Expose-Headers', EXPOSED_HEADERS);
        }
        if (!preflight) return next();
        if (allowed) {
          res.setHeader('Access-Control-Allow-Methods', ALLOWED_METHODS);
          res.setHeader('Access-Control-Allow-Headers', ALLOWED_HEADERS);
          res.setHeader('Access-Control-Max-Age', '600');
        }
        res.status(204).end();
      },
      (error: unknown) => next(error),
    );
  };
}
