import { Controller, Get, Header } from '@nestjs/common';
import { API_PREFIX, MCP_PATH, successEnvelope, type SuccessEnvelope } from '@crm/contracts';
import { GatewayConfig } from '../config/gateway.config';
import { renderDocsPage } from './docs-page';
import { buildOpenApi, type OpenApiDocument } from './openapi.builder';

/** Public API reference: no credentials needed. */
@Controller('api/v3')
export class DocsController {
  private readonly document: OpenApiDocument;
  private readonly page: string;
  private readonly links: Record<string, string>;

  constructor(config: GatewayConfig) {
    const base = `${config.PUBLIC_URL}${API_PREFIX}`;
    this.links = { docs: `${base}/docs`, openapi: `${base}/openapi.json`, mcp: `${config.PUBLIC_URL}${MCP_PATH}`, base_url: base };
    this.document = buildOpenApi({ serverUrl: config.PUBLIC_URL, authUrl: config.PUBLIC_AUTH_URL });
    this.page = renderDocsPage(this.document);
  }

  /** `GET /api/v3`: where things are, for a developer who starts at the base URL. */
  @Get(['', '/'])
  index(): SuccessEnvelope {
    return successEnvelope({ api: 'CRM API v3', ...this.links });
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

/** `GET /`: the service's front door points to the API and its reference. */
@Controller()
export class RootController {
  private readonly links: Record<string, string>;

  constructor(config: GatewayConfig) {
    const base = `${config.PUBLIC_URL}${API_PREFIX}`;
    this.links = { docs: `${base}/docs`, openapi: `${base}/openapi.json`, mcp: `${config.PUBLIC_URL}${MCP_PATH}`, base_url: base };
  }

  @Get()
  index(): SuccessEnvelope {
    return successEnvelope({ api: 'CRM API v3', ...this.links });
  }
}
