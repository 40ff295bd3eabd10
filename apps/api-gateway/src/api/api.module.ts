import { Module } from '@nestjs/common';
import { ApiAuthenticator } from '../auth/api-authenticator';
import { BearerTokenVerifier } from '../auth/bearer-token.verifier';
import { CredentialsVerifier } from '../auth/credentials.verifier';
import { IdempotencyStore } from '../limits/idempotency';
import { RateLimiter } from '../limits/rate-limiter';
import { RouteTable } from '../routing/route-table';
import { DocsController, RootController } from '../openapi/docs.controller';
import { FilesController } from '../uploads/files.controller';
import { UploadPipeline } from '../uploads/upload-pipeline';
import { ApiPipeline } from './api-pipeline';
import { ApiService } from './api.service';
import { ReadPositions } from './read-positions';

/** The API's parts; its routes are served by the API edge (edge/api-edge.ts), the public documents and files by controllers. */
@Module({
  controllers: [RootController, DocsController, FilesController],
  providers: [
    ApiService,
    ReadPositions,
    ApiPipeline,
    UploadPipeline,
    RateLimiter,
    IdempotencyStore,
    CredentialsVerifier,
    BearerTokenVerifier,
    ApiAuthenticator,
    { provide: RouteTable, useValue: new RouteTable() },
  ],
  exports: [ApiPipeline, UploadPipeline, ApiAuthenticator, BearerTokenVerifier, RateLimiter, RouteTable, ReadPositions],
})
export class ApiModule {}
