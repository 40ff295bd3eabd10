import { Controller, Get, Header } from '@nestjs/common';
import { API_PREFIX, MCP_PATH, successEnvelope, type SuccessEnvelope } from '@crm/contracts';
import { GatewayConfig } from '../config/gateway.config';
import { renderDocsPage } from './docs-page';
import { buildOpenApi, type OpenApiDocument } from './openapi.builder';

type ApiLinks = ReturnType<typeof apiLinks>;

/** Where a developer finds the API, its reference and the MCP endpoint (answered by `/` and `/api/v3`). */
function apiLinks(config: GatewayConfig) {
  const base = `${config.PUBLIC_URL}${API_PREFIX}`;
  return {
    api: 'CRM API v3',
    docs: `${base}/docs`,
    openapi: `${base}/openapi.json`,
    mcp: `${config.PUBLIC_URL}${MCP_PATH}`,
    base_url: base,
  };
}

/** Public API reference: no credentials needed. */
@Controller('api/v3')
export class DocsController {
  private readonly document: OpenApiDocument;
  private readonly page: string;
  private readonly links: ApiLinks;

  constructor(config: GatewayConfig) {
    this.links = apiLinks(config);
    this.document = buildOpenApi({ serverUrl: config.PUBLIC_URL, authUrl: config.PUBLIC_AUTH_URL });
    this.page = renderDocsPage(this.document);
  }

  /** `GET /api/v3`: where things are, for a developer who starts at the base URL. */
  @Get(['', '/'])
  index(): SuccessEnvelope {
    return successEnvelope(this.links);
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
  private readonly links: ApiLinks;

  constructor(config: GatewayConfig) {
    this.links = apiLinks(config);
  }

  @Get()
  index(): SuccessEnvelope {
    return successEnvelope(this.links);
  }
}
