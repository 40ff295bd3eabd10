import 'reflect-metadata';
import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import { NestFactory } from '@nestjs/core';
import { loadConfig } from '@crm/config';
import { createLogger, createMetricsRegistry, httpMetrics, PinoNestLogger, startTracing } from '@crm/observability';
import { listenOn, pathLengthLimit, requestContextMiddleware, runService, startupConfig } from '@crm/service-kit';
import { AppModule } from './app.module';
import { BrowserOriginPolicy } from './cors/browser-origins';
import { corsMiddleware } from './cors/cors.middleware';
import { GatewayConfig } from './config/gateway.config';
import { ApiEdge, type EdgeRequest } from './edge/api-edge';
import { jsonBodyParser, jsonOrUploadBodies } from './uploads/upload-bodies.middleware';

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
    const requestContext = requestContextMiddleware(httpMetrics(registry), (req: EdgeRequest) => req.apiRoute?.route.operationId, logger);
    app.use(requestContext);
    app.use(pathLengthLimit());
    app.use(corsMiddleware(app.get(BrowserOriginPolicy)));
    app.use(jsonOrUploadBodies());
    app.use(jsonBodyParser());
    // The REST API is served by the edge on node's request, ahead of Express (which keeps the rest).
    const edge = app.get(ApiEdge);
    const server = app.getHttpServer() as Server;
    const [expressApp] = server.listeners('request') as RequestListener[];
    server.removeAllListeners('request');
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      if (edge.handles(req)) requestContext(req, res, () => void edge.serve(req, res));
      else expressApp(req, res);
    });
    return app;
  },
  listen: (app) => listenOn(app, config.PORT),
  metricsPort: config.METRICS_PORT,
});
