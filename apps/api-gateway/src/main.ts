import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { loadConfig } from '@crm/config';
import { createLogger, createMetricsRegistry, httpMetrics, PinoNestLogger, startTracing } from '@crm/observability';
import { listenOn, pathLengthLimit, requestContextMiddleware, runService, startupConfig } from '@crm/service-kit';
import { json } from 'express';
import { AppModule } from './app.module';
import { BrowserOriginPolicy } from './cors/browser-origins';
import { corsMiddleware } from './cors/cors.middleware';
import { GatewayConfig } from './config/gateway.config';
import type { ApiRequest } from './routing/api-route.middleware';
import { RouteTable } from './routing/route-table';
import { jsonOrUploadBodies } from './uploads/upload-bodies.middleware';

const SERVICE = 'api-gateway';
const config = startupConfig(SERVICE, () => loadConfig(GatewayConfig));
const logger = createLogger(SERVICE, config.LOG_LEVEL);

void runService({
  service: SERVICE,
  logger,
  tracing: startTracing(config.tracingOptions(SERVICE)),
  shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS,
  createApp: async () => {
    const registry = createMetricsRegistry(SERVICE);
    const app = await NestFactory.create(AppModule.forRoot(config, { service: SERVICE, logger, registry }), {
      logger: new PinoNestLogger(logger),
      bodyParser: false,
    });
    const express = app.getHttpAdapter().getInstance();
    express.disable('x-powered-by');
    // ETags come from the reply's data (api/etag.ts), not from the whole body with its timestamp.
    express.set('etag', false);
    express.set('query parser', 'simple');
    // The route label is the operation id of an API route, else the matched template, else "unmatched".
    app.use(requestContextMiddleware(httpMetrics(registry), (req) => (req as ApiRequest).apiRoute?.route.operationId, logger));
    app.use(pathLengthLimit());
    app.use(corsMiddleware(app.get(BrowserOriginPolicy)));
    app.use(jsonOrUploadBodies(app.get(RouteTable)));
    app.use(json({ limit: '1mb', strict: false }));
    return app;
  },
  listen: (app) => listenOn(app, config.PORT),
  metricsPort: config.METRICS_PORT,
});
