import { Controller, Get, Res } from '@nestjs/common';
import type { Response } from 'express';
import { ReadinessRegistry } from './readiness.registry';

/**
 * Liveness and readiness, on every service's HTTP port. Prometheus metrics are not here: they are
 * served on METRICS_PORT only (serveMetrics), so a public port never exposes them.
 */
@Controller()
export class OpsController {
  constructor(private readonly readiness: ReadinessRegistry) {}

  @Get('healthz')
  healthz(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('readyz')
  async readyz(@Res() res: Response): Promise<void> {
    const report = await this.readiness.report();
    res.status(report.ready ? 200 : 503).json({ status: report.ready ? 'ready' : 'not_ready', checks: report.checks });
  }
}
