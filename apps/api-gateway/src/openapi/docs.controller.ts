import { Controller, Get, Param, Res } from '@nestjs/common';
import { API_PREFIX, ApiError, MCP_PATH, successEnvelope, type SuccessEnvelope } from '@crm/contracts';
import type { Response } from 'express';
import { GatewayConfig } from '../config/gateway.config';
import { DOCS_CSS, DOCS_INIT_JS, docsContentSecurityPolicy, renderDocsPage, SWAGGER_UI_DIR, SWAGGER_UI_FILES } from './docs-page';
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
  private readonly policy: string;

  constructor(config: GatewayConfig) {
    this.links = apiLinks(config);
    this.document = buildOpenApi({ serverUrl: config.PUBLIC_URL, authUrl: config.PUBLIC_AUTH_URL });
    this.page = renderDocsPage(this.document);
    this.policy = docsContentSecurityPolicy(config.PUBLIC_URL, config.PUBLIC_AUTH_URL);
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

  /** The interactive reference (Swagger UI from the project's own swagger-ui-dist). */
  @Get('docs')
  docs(@Res() res: Response): void {
    res.set('Content-Security-Policy', this.policy).type('html').send(this.page);
  }

  /** The reference's assets: a fixed list, so no other file of the package (or the disk) is reachable. */
  @Get('docs/:file')
  asset(@Param('file') file: string, @Res() res: Response): void {
    if (file === 'init.js') return void res.type('js').set('Cache-Control', 'no-cache').send(DOCS_INIT_JS);
    if (file === 'docs.css') return void res.type('css').set('Cache-Control', 'no-cache').send(DOCS_CSS);
    if (!(SWAGGER_UI_FILES as readonly string[]).includes(file)) throw ApiError.notFound('No such file of the API reference');
    if (file.endsWith('.html')) res.set('Content-Security-Policy', this.policy);
    res.sendFile(file, { root: SWAGGER_UI_DIR, maxAge: '1d', dotfiles: 'deny' });
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
