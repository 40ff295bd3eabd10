import { Controller, Get, Header, Inject, Res } from '@nestjs/common';
import type { Response } from 'express';
import type { Registry } from 'prom-client';
import { ReadinessRegistry } from './readiness.registry';
import { METRICS_REGISTRY } from './tokens';

/** Liveness, readiness and Prometheus metrics, on every service's HTTP port. */
@Controller()
export class OpsController {
  constructor(
    private readonly readiness: ReadinessRegistry,
    @Inject(METRICS_REGISTRY) private readonly registry: Registry,
  ) {}

  @Get('healthz')
  healthz(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('readyz')
  async readyz(@Res() res: Response): Promise<void> {
    const report = await this.readiness.report();
    res.status(report.ready ? 200 : 503).json({ status: report.ready ? 'ready' : 'not_ready', checks: report.checks });
  }

  @Get('metrics')
  @Header('Cache-Control', 'no-store')
  async metrics(@Res() res: Response): Promise<void> {
    res.setHeader('Content-Type', this.registry.contentType);
    res.send(await this.registry.metrics());
  }
}
