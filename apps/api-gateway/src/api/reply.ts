import { noneMatchHolds, type RouteDeclaration } from '@crm/contracts';
import type { ErrorReply } from '@crm/service-kit';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { IdempotentOutcome } from '../limits/idempotency';
import { RawJsonData } from '@crm/messaging';
import { envelopeHead, envelopeJson, parseIfNoneMatch, recordKey, recordVersion, versionedTag } from './etag';

// Writing the API's answers on node's response, as Express's res.send wrote them: the type with
// charset=utf-8, Content-Length, no body for HEAD, and none of the three for 204 and 304.

/** Sends `text` (or its UTF-8 bytes) as `type` (e.g. `application/json`) with `status`. */
export function sendText(req: IncomingMessage, res: ServerResponse, status: number, type: string, text: string | Buffer): void {
  res.statusCode = status;
  if (status === 204 || status === 304) {
    res.removeHeader('Content-Type');
    res.removeHeader('Content-Length');
    res.end();
    return;
  }
  res.setHeader('Content-Type', `${type}; charset=utf-8`);
  res.setHeader('Content-Length', typeof text === 'string' ? Buffer.byteLength(text) : text.length);
  res.end(req.method === 'HEAD' ? undefined : text);
}

/** Sends an error's answer (ApiExceptionFilter.reply); a response already under way is ended. */
export function sendError(req: IncomingMessage, res: ServerResponse, reply: ErrorReply): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  for (const [name, value] of Object.entries(reply.headers)) res.setHeader(name, value);
  sendText(req, res, reply.status, 'application/json', JSON.stringify(reply.body));
}

/**
 * Sends the pipeline's outcome: Idempotent-Replayed on a replay; the reply's ETag, and 304 for a
 * GET (or HEAD) whose If-None-Match names it (docs/decisions.md "ETags and conditional requests").
 */
export function sendOutcome(req: IncomingMessage, res: ServerResponse, route: RouteDeclaration, outcome: IdempotentOutcome): void {
  if (outcome.replayed) res.setHeader('Idempotent-Replayed', 'true');
  const body = outcome.body as Record<string, unknown> | null;
  if (body === null || typeof body !== 'object' || body.data === undefined) {
    sendText(req, res, outcome.status, 'application/json', JSON.stringify(body) ?? '');
    return;
  }
  // `data` is serialized once, or not at all: the UTF-8 bytes of the JSON crm-core wrote, neither
  // decoded nor parsed. The ETag hashes that text (or those bytes) and the body is built around it.
  const raw = body.data instanceof RawJsonData ? body.data : undefined;
  const dataJson = raw ? raw.bytes : JSON.stringify(body.data);
  const method = req.method ?? '';
  const key = recordKey(route.reply);
  const etag = versionedTag(method, raw ? raw.versionOf(key) : recordVersion(body.data, key), dataJson);
  if (etag !== undefined) {
    const ifNoneMatch = method === 'GET' || method === 'HEAD' ? req.headers['if-none-match'] : undefined;
    const notModified = ifNoneMatch !== undefined && noneMatchHolds(parseIfNoneMatch(ifNoneMatch), etag);
    res.setHeader('ETag', etag);
    if (notModified) {
      res.statusCode = 304;
      res.end();
      return;
    }
  }
  const answer =
    typeof dataJson === 'string' ? envelopeJson(body, dataJson) : Buffer.concat([Buffer.from(envelopeHead(body)), dataJson, CLOSING_BRACE]);
  sendText(req, res, outcome.status, 'application/json', answer);
}

const CLOSING_BRACE = Buffer.from('}');
