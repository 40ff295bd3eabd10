import { Injectable } from '@nestjs/common';
import { API_PREFIX, ApiError, ErrorName, LIST_FORMAT_HEADER, type Caller } from '@crm/contracts';
import { nonJsonBodyError, pathLengthError } from '@crm/service-kit';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseQuery } from 'node:querystring';
import { ApiPipeline } from '../api/api-pipeline';
import { readsCrmCore, type ApiInput } from '../api/api.service';
import { ReadPositions } from '../api/read-positions';
import { sendError, sendOutcome, sendText } from '../api/reply';
import { ApiAuthenticator } from '../auth/api-authenticator';
import { GatewayConfig } from '../config/gateway.config';
import { BrowserOriginPolicy } from '../cors/browser-origins';
import { applyCors, isCorsPath } from '../cors/cors.middleware';
import { RateLimiter } from '../limits/rate-limiter';
import { GatewayExceptionFilter, routeNotFoundMessage } from '../routing/gateway-exception.filter';
import { RouteTable, type ResolvedRoute, type RouteResolution } from '../routing/route-table';
import { isMultipart } from '../uploads/multipart-upload';
import { jsonBodyParser } from '../uploads/upload-bodies.middleware';
import { UploadPipeline } from '../uploads/upload-pipeline';

/** A request the edge serves: the route and the caller, once known (the access log and metrics read them). */
export type EdgeRequest = IncomingMessage & { apiRoute?: ResolvedRoute; user?: Caller; body?: unknown };

/** Served by DocsController without credentials, for GET (and HEAD) only: the index, the document, the reference and its files. */
const PUBLIC_PATHS = new Set(['', '/', '/openapi.json', '/docs']);
const isPublicPath = (path: string) => PUBLIC_PATHS.has(path) || /^\/docs\/[\w.-]+$/.test(path);
const PUBLIC_METHODS = new Set(['GET', 'HEAD']);

/**
 * The REST API (every /api/v3 route but the public documents) on node's request and response,
 * without Express, passport or Nest's controller pipeline: it does what that chain did, in its
 * order, with the same code. After the request context (main.ts): the path length limit; CORS;
 * JSON bodies (415, then read with the 1 MiB limit by the same body parser); the route (unknown
 * path 404, wrong method 405 with Allow); authentication (ApiAuthenticator, with its challenge);
 * the per-user limits (RateLimiter; the lease ends with the request); the pipeline (or the upload
 * pipeline for a file), and the answer with its ETag (api/reply.ts). Errors answer as
 * GatewayExceptionFilter answers them.
 */
@Injectable()
export class ApiEdge {
  private readonly notFound: string;
  private readonly readJson = jsonBodyParser();

  constructor(
    private readonly routes: RouteTable,
    private readonly origins: BrowserOriginPolicy,
    private readonly authenticator: ApiAuthenticator,
    private readonly limiter: RateLimiter,
    private readonly pipeline: ApiPipeline,
    private readonly uploads: UploadPipeline,
    private readonly errors: GatewayExceptionFilter,
    config: GatewayConfig,
    private readonly positions: ReadPositions,
  ) {
    this.notFound = routeNotFoundMessage(config);
  }

  /**
   * Whether the request is the edge's: a path under /api/v3 (matched as Express matched Nest's
   * routes, ignoring case) other than a public document asked for with GET or HEAD.
   */
  handles(req: IncomingMessage): boolean {
    const url = req.url ?? '';
    if (url.length < API_PREFIX.length || url.slice(0, API_PREFIX.length).toLowerCase() !== API_PREFIX) return false;
    const next = url.charAt(API_PREFIX.length);
    if (next !== '' && next !== '/' && next !== '?') return false;
    return !(PUBLIC_METHODS.has(req.method ?? '') && isPublicPath(apiPath(pathOf(url))));
  }

  /** Answers the request; never rejects. */
  async serve(req: EdgeRequest, res: ServerResponse): Promise<void> {
    let release: (() => void) | undefined;
    try {
      const url = req.url ?? '';
      const tooLong = pathLengthError(url);
      if (tooLong) throw tooLong;
      const path = pathOf(url);
      if (req.headers.origin !== undefined && isCorsPath(path) && (await applyCors(this.origins, req, res))) return;
      const resolved = this.resolve(req.method ?? '', apiPath(path));
      const body = await this.body(req, res, resolved);
      req.apiRoute = this.routeOf(resolved, req, res);
      const caller = (req.user = await this.authenticator.authenticate(req.headers));
      // A read's write positions are fetched beside the rate-limit call: no round trip of their own.
      const readAfter = readsCrmCore(req.apiRoute.route) ? this.positions.lookup(caller) : undefined;
      const verdict = await this.limiter.acquire(caller.user_id);
      for (const [name, value] of Object.entries(verdict.headers)) res.setHeader(name, value);
      // Both refusals are plain text, not the envelope (the spec's wording; decisions.md).
      if (verdict.kind === 'rate_limited') return sendText(req, res, 403, 'text/plain', 'Rate Limit Exceeded');
      if (verdict.kind === 'too_many_concurrent') return sendText(req, res, 429, 'text/plain', 'Too Many Requests');
      release = verdict.release;
      const queryAt = url.indexOf('?');
      const rawQuery = queryAt < 0 ? '' : url.slice(queryAt + 1);
      const readOnly = req.method === 'GET' || req.method === 'HEAD';
      const input: ApiInput = {
        query: parseQuery(rawQuery),
        body,
        rawQuery,
        ifMatch: readOnly ? undefined : header(req, 'if-match'),
        listFormat: header(req, LIST_FORMAT_HEADER.toLowerCase()),
        // The answer embeds crm-core's JSON of `data` as it came (reply.ts sendOutcome).
        rawData: true,
        readAfter,
      };
      const key = req.method === 'POST' ? header(req, 'idempotency-key') : undefined;
      // Routes that take a file: the bytes go to storage, crm-core gets the key (decisions.md "Attachments").
      const outcome = req.apiRoute.route.upload
        ? await this.uploads.run(caller, req.apiRoute, req, input, key)
        : await this.pipeline.run(caller, req.apiRoute, input, key);
      sendOutcome(req, res, req.apiRoute.route, outcome);
    } catch (error) {
      sendError(req, res, this.errors.reply(error));
    } finally {
      release?.();
    }
  }

  /** The route of an API path; the public documents resolve to nothing (only GET is allowed there). */
  private resolve(method: string, path: string): RouteResolution {
    return isPublicPath(path) ? { kind: 'method_not_allowed', allowed: ['GET'] } : this.routes.resolve(method, path || '/');
  }

  /** The matched route, or the 404 or 405 (with Allow) of an unknown path or method. */
  private routeOf(resolved: RouteResolution, req: IncomingMessage, res: ServerResponse): ResolvedRoute {
    if (resolved.kind === 'match') return { route: resolved.route, params: resolved.params };
    if (resolved.kind === 'not_found') throw new ApiError(ErrorName.ResourceNotFound, this.notFound);
    const allowed = resolved.allowed.join(', ');
    res.setHeader('Allow', allowed);
    throw new ApiError(ErrorName.MethodNotAllowed, `Method ${req.method} is not allowed here; allowed: ${allowed}`);
  }

  /**
   * The JSON body (undefined when none was sent), or 415 for a body of another type; a multipart
   * body to a route that takes a file is left to the upload pipeline.
   */
  private async body(req: EdgeRequest, res: ServerResponse, resolved: RouteResolution): Promise<unknown> {
    const takesFile = resolved.kind === 'match' && resolved.route.upload !== undefined;
    if (!(takesFile && isMultipart(req))) {
      const refusal = nonJsonBodyError(req.headers);
      if (refusal) throw refusal;
    }
    // The body parser reads nothing without either header; skipping it keeps bodiless requests cheap.
    if (req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined) return undefined;
    await new Promise<void>((resolve, reject) => this.readJson(req, res, (error?: unknown) => (error ? reject(error) : resolve())));
    return req.body;
  }
}

/** The path of a request target, without its query. */
function pathOf(url: string): string {
  const queryAt = url.indexOf('?');
  return queryAt < 0 ? url : url.slice(0, queryAt);
}

/** The path within the API: after /api/v3 when the path starts with it as written, else the whole path (which then matches no route). */
function apiPath(path: string): string {
  return path.startsWith(API_PREFIX) ? path.slice(API_PREFIX.length) : path;
}

/** One request header as Express's `req.header` read it. */
function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
