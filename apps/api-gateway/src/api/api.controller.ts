import { All, Controller, Req, Res, UseGuards } from '@nestjs/common';
import type { Caller } from '@crm/contracts';
import type { Response } from 'express';
import { ApiAuthGuard } from '../auth/api-auth.guard';
import { RateLimiter } from '../limits/rate-limiter';
import type { ApiRequest } from '../routing/api-route.middleware';
import { UploadPipeline } from '../uploads/upload-pipeline';
import { ApiPipeline } from './api-pipeline';

/**
 * Every API v3 route: resolved by ApiRouteMiddleware, authenticated by ApiAuthGuard, then per-user
 * limits, then the pipeline: authorization, the optional Idempotency-Key of a POST, the request.
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
      };
      const key = req.method === 'POST' ? req.header('idempotency-key') : undefined;
      // Routes that take a file: the bytes go to storage, crm-core gets the key (decisions.md "Attachments").
      const outcome = req.apiRoute!.route.upload
        ? await this.uploads.run(req.user, req.apiRoute!, req, input, key)
        : await this.pipeline.run(req.user, req.apiRoute!, input, key);
      if (outcome.replayed) res.set('Idempotent-Replayed', 'true');
      res.status(outcome.status).json(outcome.body);
    } finally {
      verdict.release();
    }
  }
}
