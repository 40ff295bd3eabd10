#!/usr/bin/env node
// A complete OAuth client of the CRM with oauth4webapi (https://github.com/panva/oauth4webapi):
// discovery, the authorization code flow with PKCE (S256), the API with the access token, a
// refresh, and the API again. docs/oauth-clients.md explains each step; test/e2e/oauth-example.e2e-spec.ts
// runs this file against the running system.
//
//   CRM_AUTH_URL=https://auth.example.com CRM_CLIENT_ID=crm_0123... node docs/examples/oauth-client.mjs
//
// Environment:
//   CRM_AUTH_URL       the auth-server (the OAuth issuer), e.g. http://localhost:3001 in development
//   CRM_CLIENT_ID      the client_id the operator gave you
//   CRM_CLIENT_SECRET  only for a confidential client (token_endpoint_auth_method client_secret_basic)
//   CRM_REDIRECT_URI   a redirect URI registered for the client (default http://127.0.0.1:8765/callback);
//                      this program listens on it for the one callback
//   CRM_SCOPE          space-separated scopes (default: crm)
//
// It prints the authorization URL (open it in a browser, sign in, allow), then one JSON line per
// step on stdout. Tokens are never printed.
import * as oauth from 'oauth4webapi';
import http from 'node:http';

const env = (name, fallback) => {
  const value = process.env[name] ?? fallback;
  if (value === undefined) throw new Error(`set ${name} (see the top of ${process.argv[1]})`);
  return value;
};
const issuer = new URL(env('CRM_AUTH_URL'));
const client = { client_id: env('CRM_CLIENT_ID') };
const clientSecret = process.env.CRM_CLIENT_SECRET;
const redirectUri = env('CRM_REDIRECT_URI', 'http://127.0.0.1:8765/callback');
const scope = env('CRM_SCOPE', 'crm');
// oauth4webapi insists on https; plain http is for a CRM running on your own machine only.
const options = issuer.protocol === 'http:' ? { [oauth.allowInsecureRequests]: true } : {};
const clientAuth = clientSecret ? oauth.ClientSecretBasic(clientSecret) : oauth.None();
const step = (name, details) => console.log(JSON.stringify({ step: name, ...details }));

// 1. Discovery: the endpoints, from the issuer's RFC 8414 metadata.
const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { ...options, algorithm: 'oauth2' }));
step('discovery', { authorization_endpoint: as.authorization_endpoint, token_endpoint: as.token_endpoint });

// 2. The authorization request: PKCE (S256) is required for every client; state ties the answer to it.
const codeVerifier = oauth.generateRandomCodeVerifier();
const state = oauth.generateRandomState();
const authorizationUrl = new URL(as.authorization_endpoint);
authorizationUrl.search = new URLSearchParams({
  response_type: 'code',
  client_id: client.client_id,
  redirect_uri: redirectUri,
  scope,
  state,
  code_challenge: await oauth.calculatePKCECodeChallenge(codeVerifier),
  code_challenge_method: 'S256',
}).toString();
console.log(`Open this URL in a browser, sign in and allow access:\n${authorizationUrl.href}`);

// 3. The callback: the browser comes back to the redirect URI with code, state and iss.
const callbackUrl = await new Promise((resolve, reject) => {
  const where = new URL(redirectUri);
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', redirectUri);
    if (url.pathname !== where.pathname) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end('Signed in: you can close this tab.');
    server.close();
    resolve(url);
  });
  server.on('error', reject);
  server.listen(Number(where.port || 80), where.hostname);
});
const callbackParams = oauth.validateAuthResponse(as, client, callbackUrl, state); // checks state and iss; throws on ?error=
step('callback', { code_received: callbackParams.has('code') });

// 4. The code for tokens (the code verifier proves this is the client that started the flow).
const tokens = await oauth.processAuthorizationCodeResponse(
  as,
  client,
  await oauth.authorizationCodeGrantRequest(as, client, clientAuth, callbackParams, redirectUri, codeVerifier, options),
);
// `aud` is the API base URL of the user's account (its region): call the API there.
const apiBase = String(tokens.aud);
step('tokens', {
  token_type: tokens.token_type,
  expires_in: tokens.expires_in,
  scope: tokens.scope,
  api_base_url: apiBase,
  refresh_token: Boolean(tokens.refresh_token),
});

// 5. The API with the access token: every answer is the envelope { status: 0, message, timestamp, data }.
async function api(accessToken, path) {
  const response = await oauth.protectedResourceRequest(accessToken, 'GET', new URL(`${apiBase}${path}`), undefined, undefined, options);
  const body = await response.json();
  if (!response.ok) throw new Error(`GET ${path} answered ${response.status} ${body.error_name}: ${body.error_message}`);
  return body.data;
}
const users = await api(tokens.access_token, '/users?per_page=5');
step('api', { path: '/users', total_count: users.total_count, first_user_id: users.users[0]?.user.id });

// 6. Refresh before the access token expires (an hour). A public client's refresh token is rotated:
//    keep the new one, the old one is spent.
const refreshed = await oauth.processRefreshTokenResponse(
  as,
  client,
  await oauth.refreshTokenGrantRequest(as, client, clientAuth, tokens.refresh_token, options),
);
step('refresh', {
  new_access_token: refreshed.access_token !== tokens.access_token,
  rotated_refresh_token: refreshed.refresh_token !== tokens.refresh_token,
});

const again = await api(refreshed.access_token, '/users?per_page=5');
step('api-after-refresh', { path: '/users', total_count: again.total_count });
