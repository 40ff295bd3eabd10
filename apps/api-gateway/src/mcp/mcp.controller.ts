import { All, Controller, Get, Inject, Req, Res } from '@nestjs/common';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { ApiError, ErrorName, MCP_DEFAULT_SCOPE, MCP_PATH, PROTECTED_RESOURCE_METADATA_PATH, type Caller } from '@crm/contracts';
import { LOGGER } from '@crm/service-kit';
import type { Request, Response } from 'express';
import type { Logger } from 'pino';
import { parseAuthorization } from '../auth/api-authenticator';
import { BearerTokenVerifier } from '../auth/bearer-token.verifier';
import { GatewayConfig } from '../config/gateway.config';
import { RateLimiter } from '../limits/rate-limiter';
import { McpService } from './mcp.service';

/** A JSON-RPC error outside any request (transport-level refusals). */
const rpcError = (code: number, message: string) => ({ jsonrpc: '2.0', error: { code, message }, id: null });

/**
 * The MCP endpoint (Streamable HTTP, stateless, JSON answers) and its RFC 9728 Protected Resource
 * Metadata. Only OAuth access tokens issued for this resource (RFC 8707) are accepted; a missing or
 * bad one answers 401 with `WWW-Authenticate: Bearer resource_metadata="…"`, as the MCP
 * authorization specification requires, so a client can find our authorization server.
 */
@Controller()
export class McpController {
  private readonly resource: string;
  private readonly metadataUrl: string;

  constructor(
    private readonly mcp: McpService,
    private readonly bearer: BearerTokenVerifier,
    private readonly limiter: RateLimiter,
    private readonly config: GatewayConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.resource = `${config.PUBLIC_URL}${MCP_PATH}`;
    this.metadataUrl = `${config.PUBLIC_URL}${PROTECTED_RESOURCE_METADATA_PATH}${MCP_PATH}`;
  }

  @Get([PROTECTED_RESOURCE_METADATA_PATH.slice(1), `${PROTECTED_RESOURCE_METADATA_PATH.slice(1)}${MCP_PATH}`])
  metadata(@Res() res: Response): void {
    res.set('Access-Control-Allow-Origin', '*');
    res.set('Cache-Control', 'public, max-age=3600');
    res.json({
      resource: this.resource,
      authorization_servers: [this.config.AUTH_ISSUER],
      scopes_supported: [MCP_DEFAULT_SCOPE],
      bearer_methods_supported: ['header'],
      resource_name: 'CRM MCP server',
      resource_documentation: `${this.config.PUBLIC_URL}/api/v3/docs`,
    });
  }

  @All(MCP_PATH.slice(1))
  async handle(@Req() req: Request, @Res() res: Response): Promise<void> {
    // Stateless: no server-initiated stream (GET) and no session to end (DELETE).
    if (req.method !== 'POST') {
      res
        .set('Allow', 'POST')
        .status(405)
        .json(rpcError(-32000, `Method ${req.method} is not allowed; MCP requests are POSTs`));
      return;
    }
    const caller = await this.authenticate(req, res);
    if (!caller) return;
    // One message per request (the current protocol has no batches): one request of the limits is
    // one tool call, never a hundred.
    if (Array.isArray(req.body)) {
      res.status(400).json(rpcError(-32600, 'JSON-RPC batches are not supported; send one message per request'));
      return;
    }
    const verdict = await this.limiter.acquire(caller.user_id);
    res.set(verdict.headers);
    if (verdict.kind !== 'allowed') {
      const message = verdict.kind === 'rate_limited' ? 'Rate limit exceeded' : 'Too many concurrent requests';
      res.status(429).json(rpcError(-32000, `${message}; retry after the Retry-After seconds`));
      return;
    }
    const server = this.mcp.createServer(caller);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      verdict.release();
      void transport.close();
      void server.close();
    });
    try {
      await server.connect(transport);
      await transport.handleRequest(req, res, req.body);
    } catch (error) {
      this.logger.error({ err: error }, 'MCP request failed');
      if (!res.headersSent) res.status(500).json(rpcError(-32603, 'Internal error'));
    }
  }

  /** The caller of a valid token for this resource, or null once a 401/403/503 went out. */
  private async authenticate(req: Request, res: Response): Promise<Caller | null> {
    const auth = parseAuthorization(req.header('authorization'));
    if (auth.scheme !== 'bearer') {
      const error = auth.scheme === 'none' ? '' : ', error="invalid_request", error_description="Use an OAuth bearer token"';
      this.challenge(res, 401, error, 'invalid_token', 'An OAuth access token for this MCP server is required');
      return null;
    }
    try {
      return await this.bearer.verify(auth.token, 'mcp');
    } catch (error) {
      const apiError = error instanceof ApiError ? error : new ApiError(ErrorName.InternalServerError);
      if (apiError.errorName === ErrorName.InvalidAccessToken) {
        const description = apiError.message.replace(/["\\]/g, '');
        this.challenge(res, 401, `, error="invalid_token", error_description="${description}"`, 'invalid_token', apiError.message);
      } else {
        res.status(apiError.http).json({ error: apiError.errorName, error_description: apiError.message });
      }
      return null;
    }
  }

  private challenge(res: Response, status: number, params: string, error: string, description: string): void {
    res.set('WWW-Authenticate', `Bearer resource_metadata="${this.metadataUrl}", scope="${MCP_DEFAULT_SCOPE}"${params}`);
    res.status(status).json({ error, error_description: description });
  }
}
