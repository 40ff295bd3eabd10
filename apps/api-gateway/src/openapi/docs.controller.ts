import { Controller, Get, Header } from '@nestjs/common';
import { GatewayConfig } from '../config/gateway.config';
import { renderDocsPage } from './docs-page';
import { buildOpenApi, type OpenApiDocument } from './openapi.builder';

/** Public API reference: no credentials needed. */
@Controller('api/v3')
export class DocsController {
  private readonly document: OpenApiDocument;
  private readonly page: string;

  constructor(config: GatewayConfig) {
    this.document = buildOpenApi({ serverUrl: config.PUBLIC_URL, authUrl: config.PUBLIC_AUTH_URL });
    this.page = renderDocsPage(this.document);
  }

  @Get('openapi.json')
  openapi(): OpenApiDocument {
    return this.document;
  }

  @Get('docs')
  @Header('Content-Type', 'text/html; charset=utf-8')
  docs(): string {
    return this.page;
  }
}
