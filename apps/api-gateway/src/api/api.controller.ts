import { All, Controller, Req, Res, UseGuards } from '@nestjs/common';
import { ApiError, MAX_INPUT_DEPTH, tooDeepField, type Caller } from '@crm/contracts';
import type { Response } from 'express';
import { ApiAuthGuard } from '../auth/api-auth.guard';
import { IdempotencyStore, requestFingerprint } from '../limits/idempotency';
import { RateLimiter } from '../limits/rate-limiter';
import type { ApiRequest } from '../routing/api-route.middleware';
import { ApiService } from './api.service';

/**
 * Every API v3 route: resolved by ApiRouteMiddleware, authenticated by ApiAuthGuard, then per-user
 * limits, the optional Idempotency-Key of a POST, and the request itself.
 */
@Controller('api/v3')
@UseGuards(ApiAuthGuard)
export class ApiController {
  constructor(
    private readonly api: ApiService,
    private readonly limiter: RateLimiter,
    private readonly idempotency: IdempotencyStore,
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
      const route = req.apiRoute!;
      const queryAt = req.originalUrl.indexOf('?');
      const input = {
        query: req.query as Record<string, unknown>,
        body: req.body,
        rawQuery: queryAt >= 0 ? req.originalUrl.slice(queryAt + 1) : '',
      };
      const key = req.method === 'POST' ? req.header('idempotency-key') : undefined;
      if (key === undefined) {
        const { status, body } = await this.api.handle(req.user, route, input);
        res.status(status).json(body);
        return;
      }
      // The fingerprint walks the body recursively: refuse hostile nesting first, as validation would.
      const deep = input.body !== null && typeof input.body === 'object' ? tooDeepField(input.body) : null;
      if (deep !== null) throw ApiError.invalid({ [deep]: `is nested too deeply (at most ${MAX_INPUT_DEPTH} levels)` });
      const fingerprint = requestFingerprint(route.route.operationId, route.params, input.query, input.body);
      const outcome = await this.idempotency.run(req.user.user_id, key, fingerprint, () => this.api.handle(req.user, route, input));
      if (outcome.replayed) res.set('Idempotent-Replayed', 'true');
      res.status(outcome.status).json(outcome.body);
    } finally {
      verdict.release();
    }
  }
}
