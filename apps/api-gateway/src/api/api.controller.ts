import { All, Controller, Req, Res, UseGuards } from '@nestjs/common';
import type { Caller } from '@crm/contracts';
import type { Response } from 'express';
import { ApiAuthGuard } from '../auth/api-auth.guard';
import type { ApiRequest } from '../routing/api-route.middleware';
import { ApiService } from './api.service';

/** Every API v3 route: resolved by ApiRouteMiddleware, authenticated by ApiAuthGuard. */
@Controller('api/v3')
@UseGuards(ApiAuthGuard)
export class ApiController {
  constructor(private readonly api: ApiService) {}

  @All(['', '{*path}'])
  async dispatch(@Req() req: ApiRequest & { user: Caller }, @Res() res: Response): Promise<void> {
    const { status, body } = await this.api.handle(req.user, req.apiRoute!, { query: req.query as Record<string, unknown>, body: req.body });
    res.status(status).json(body);
  }
}
