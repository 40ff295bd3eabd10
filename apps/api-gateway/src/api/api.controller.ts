import { All, Controller, Req, Res, UseGuards } from '@nestjs/common';
import { noneMatchHolds, type Caller } from '@crm/contracts';
import type { Response } from 'express';
import { ApiAuthGuard } from '../auth/api-auth.guard';
import { RateLimiter } from '../limits/rate-limiter';
import type { ApiRequest } from '../routing/api-route.middleware';
import { UploadPipeline } from '../uploads/upload-pipeline';
import { ApiPipeline } from './api-pipeline';
import { envelopeJson, parseIfNoneMatch, replyTag } from './etag';

/**
 * Every API v3 route: resolved by ApiRouteMiddleware, authenticated by ApiAuthGuard, then per-user
 * limits, then the pipeline: authorization, the optional Idempotency-Key of a POST, the request;
 * the reply's ETag, and 304 for a GET whose If-None-Match names it (docs/decisions.md "ETags and
 * conditional requests").
 */
@Controller('api/v3')
@UseGuards(ApiAuthGuard)
export class ApiController {
  constructor(
    private readonly pipeline: ApiPipeline,
    private readonly limiter: RateLimiter,
    private readonly uploads: UploadPipeline,
  ) {}

  @All(['', '{*path}'])
  async dispatch(@Req() req: ApiRequest & { user: Caller }, @Res() res: Response): Promise<void> {
    const verdict = await this.limiter.acquire(req.user.user_id);
    res.set(verdict.headers);
    // Both refusals are plain text, not the envelope (the spec's wording; decisions.md).
    if (verdict.kind === 'rate_limited') {
      res.status(403).type('text/plain').send('Rate Limit Exceeded');
      return;
    }
    if (verdict.kind === 'too_many_concurrent') {
      res.status(429).type('text/plain').send('Too Many Requests');
      return;
    }
    try {
      const queryAt = req.originalUrl.indexOf('?');
      const input = {
        query: req.query as Record<string, unknown>,
        body: req.body,
        rawQuery: queryAt >= 0 ? req.originalUrl.slice(queryAt + 1) : '',
        ifMatch: req.method === 'GET' || req.method === 'HEAD' ? undefined : req.header('if-match'),
      };
      const key = req.method === 'POST' ? req.header('idempotency-key') : undefined;
      // Routes that take a file: the bytes go to storage, crm-core gets the key (decisions.md "Attachments").
      const outcome = req.apiRoute!.route.upload
        ? await this.uploads.run(req.user, req.apiRoute!, req, input, key)
        : await this.pipeline.run(req.user, req.apiRoute!, input, key);
      if (outcome.replayed) res.set('Idempotent-Replayed', 'true');
      const body = outcome.body as Record<string, unknown> | null;
      if (body === null || typeof body !== 'object' || body.data === undefined) {
        res.status(outcome.status).json(body);
        return;
      }
      // `data` is serialized once: the ETag hashes that text and the body is built around it.
      const dataJson = JSON.stringify(body.data);
      const etag = replyTag(req.method, req.apiRoute!.route.reply, body.data, dataJson);
      if (etag !== undefined) {
        const ifNoneMatch = req.method === 'GET' || req.method === 'HEAD' ? req.header('if-none-match') : undefined;
        const notModified = ifNoneMatch !== undefined && noneMatchHolds(parseIfNoneMatch(ifNoneMatch), etag);
        res.set('ETag', etag);
        if (notModified) {
          res.status(304).end();
          return;
        }
      }
      res.status(outcome.status).type('application/json').send(envelopeJson(body, dataJson));
    } finally {
      verdict.release();
    }
  }
}
