import { All, Controller, Get, Res } from '@nestjs/common';
import type { Response } from 'express';
import { AuthServerConfig } from '../config/auth-server.config';

/** What a client that tried dynamic registration (an MCP client, say) should do instead. */
export const CLIENTS_PAGE_PATH = '/oauth/clients';

const CLIENTS_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Getting an OAuth client</title></head>
<body style="font:16px/1.5 system-ui,sans-serif;max-width:44rem;margin:2rem auto;padding:0 1rem">
<h1>Getting an OAuth client</h1>
<p>Dynamic client registration is closed: every OAuth client, including an AI assistant's MCP client,
is registered by the operator of this CRM.</p>
<ol>
<li>Ask the operator for a client, giving its name, its redirect URIs (https, or
<code>http://127.0.0.1:&lt;port&gt;/callback</code> and <code>http://localhost:&lt;port&gt;/callback</code>
for a program on your own machine) and the scopes it needs: <code>mcp</code> for an assistant,
<code>crm</code> or <code>crm.readonly</code> for an app.</li>
<li>The operator calls <code>POST /operator/clients</code> with
<code>{"client_name", "redirect_uris", "scope", "token_endpoint_auth_method": "none"}</code>
(a public client with PKCE; <code>client_secret_basic</code> for a server-side app) and hands you the
<code>client_id</code> (and <code>client_secret</code>, if any).</li>
<li>Configure your client with that <code>client_id</code>. Authorization uses PKCE (S256); an MCP client
sends <code>resource</code> = the MCP server's URL, which its protected resource metadata names.</li>
</ol>
</body></html>`;

/** Advertised in discovery, closed: clients are approved by the operator (decisions.md). */
@Controller('oauth')
export class RegistrationController {
  constructor(private readonly config: AuthServerConfig) {}

  @All('register')
  register(@Res() res: Response): void {
    // The spec's exact body; a Link header (RFC 8288, rel=help) points to the page saying how to get a client.
    res.set('Link', `<${this.config.AUTH_ISSUER}${CLIENTS_PAGE_PATH}>; rel="help"`);
    res.status(403).json({ error: 'access_denied', error_description: 'registration is closed' });
  }

  @Get('clients')
  clients(@Res() res: Response): void {
    res.status(200).type('html').send(CLIENTS_PAGE);
  }
}
