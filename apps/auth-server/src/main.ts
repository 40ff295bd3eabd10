import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { loadConfig } from '@crm/config';
import { QueueGroups } from '@crm/contracts';
import { runMigrations } from '@crm/database';
import { attachNatsServer } from '@crm/messaging';
import { createLogger, createMetricsRegistry, httpMetrics, PinoNestLogger, startTracing } from '@crm/observability';
import { listenOn, pathLengthLimit, requestContextMiddleware, runService, startupConfig } from '@crm/service-kit';
import { json, urlencoded, type NextFunction, type Request, type Response } from 'express';
import type { OidcProviderHolder } from './oauth/oidc-provider.holder';
import { AppModule } from './app.module';
import { AuthServerConfig } from './config/auth-server.config';
import { authDataSource } from './database/auth-data-source';
import { OIDC_PROVIDER } from './oauth/oauth.tokens';
import { OIDC_PATHS } from './oauth/oidc-provider.factory';
import { TokenEndpointPrecheck } from './oauth/token-endpoint.precheck';
import { OperatorPortServer } from './operator/operator-port';
import { installTestClock } from './operator/test-clock';
import { securityHeaders } from './oauth/security-headers';
import { forwardedHeaders, trustProxySetting } from './http/trusted-proxies';

const SERVICE = 'auth-server';
const config = startupConfig(SERVICE, () => loadConfig(AuthServerConfig));
const logger = createLogger(SERVICE, config.LOG_LEVEL);
if (config.ENABLE_TEST_CLOCK) installTestClock();

void runService({
  service: SERVICE,
  logger,
  tracing: startTracing(config.tracingOptions(SERVICE)),
  shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS,
  migrate: () => runMigrations(authDataSource(config), (msg) => logger.info(msg)).then(() => undefined),
  createApp: async () => {
    const registry = createMetricsRegistry(SERVICE);
    // Body parsing only where this service reads JSON: the OAuth routes parse their own bodies.
    const app = await NestFactory.create(AppModule.forRoot(config, { service: SERVICE, logger, registry }), {
      logger: new PinoNestLogger(logger),
      bodyParser: false,
    });
    // The route label is the matched template; oidc-provider's paths are labelled by their fixed prefix.
    app.use(requestContextMiddleware(httpMetrics(registry), (req) => oidcPathOf(req.path), logger));
    app.use(pathLengthLimit());
    app.use('/operator', json({ limit: '1mb' }));
    app.use(securityHeaders());
    app.getHttpAdapter().getInstance().disable('x-powered-by');
    // Forwarding headers count only from AUTH_TRUSTED_PROXIES (none by default); everything
    // behind this point, oidc-provider included, sees the client address Express derived and the
    // issuer's scheme and host.
    app.getHttpAdapter().getInstance().set('trust proxy', trustProxySetting(config.trustedProxies));
    app.use(forwardedHeaders(config.AUTH_ISSUER));
    // The OAuth routes belong to oidc-provider; only the interaction forms and the token body
    // (for the client-secret pre-check, which oidc-provider then reuses) are parsed here.
    app.use('/oauth/interaction', urlencoded({ extended: false, limit: '16kb' }));
    app.use('/oauth/token', urlencoded({ extended: false, limit: '56kb' }), app.get(TokenEndpointPrecheck).handler());
    const oidc = app.get<OidcProviderHolder>(OIDC_PROVIDER);
    app.use((req: Request, res: Response, next: NextFunction) => (oidcPathOf(req.path) ? oidc.handle(req, res) : next()));
    await attachNatsServer(app, {
      service: SERVICE,
      url: config.NATS_URL,
      namespace: config.CRM_NAMESPACE,
      queue: QueueGroups.authServer,
      logger,
      shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS,
      verifyKeys: config.CALLER_VERIFY_KEYS,
    });
    return app;
  },
  listen: async (app) => {
    const port = await listenOn(app, config.AUTH_PORT);
    // The operator API on its internal port only (the public port answers 404 there).
    const operatorPort = await app.get(OperatorPortServer).listen(app.getHttpAdapter().getInstance(), config.OPERATOR_PORT);
    logger.info({ operator_port: operatorPort }, 'operator API listening');
    return port;
  },
  metricsPort: config.METRICS_PORT,
});

/** The oidc-provider path `path` falls under (one of OIDC_PATHS), if any. */
function oidcPathOf(path: string): string | undefined {
  return OIDC_PATHS.find((p) => path === p || path.startsWith(`${p}/`));
}
