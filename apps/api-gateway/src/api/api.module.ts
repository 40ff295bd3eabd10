import { Module, type MiddlewareConsumer, type NestModule } from '@nestjs/common';
import { PassportModule } from '@nestjs/passport';
import { ApiCredentialsStrategy } from '../auth/api-credentials.strategy';
import { BearerTokenVerifier } from '../auth/bearer-token.verifier';
import { CredentialsVerifier } from '../auth/credentials.verifier';
import { IdempotencyStore } from '../limits/idempotency';
import { RateLimiter } from '../limits/rate-limiter';
import { ApiRouteMiddleware } from '../routing/api-route.middleware';
import { RouteTable } from '../routing/route-table';
import { DocsController, RootController } from '../openapi/docs.controller';
import { FilesController } from '../uploads/files.controller';
import { UploadPipeline } from '../uploads/upload-pipeline';
import { ApiController } from './api.controller';
import { ApiPipeline } from './api-pipeline';
import { ApiService } from './api.service';

@Module({
  imports: [PassportModule],
  // DocsController first: its public paths win over the API catch-all.
  controllers: [RootController, DocsController, FilesController, ApiController],
  providers: [
    ApiService,
    ApiPipeline,
    UploadPipeline,
    RateLimiter,
    IdempotencyStore,
    CredentialsVerifier,
    BearerTokenVerifier,
    ApiCredentialsStrategy,
    { provide: RouteTable, useValue: new RouteTable() },
  ],
  exports: [ApiPipeline, BearerTokenVerifier, RateLimiter],
})
export class ApiModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(ApiRouteMiddleware).forRoutes(ApiController);
  }
}
