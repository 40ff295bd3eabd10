import { mcpResourceUrl } from '@crm/contracts';
import type { RedisClient } from '@crm/service-kit';
import type { Configuration, KoaContextWithOIDC } from 'oidc-provider';
import type Provider from 'oidc-provider';
import type { Logger } from 'pino';
import type { DataSource } from 'typeorm';
import type { AuthServerConfig } from '../config/auth-server.config';
import type { IdentityRepository } from '../identity/identity.repository';
import type { GrantRevocationService } from './grant-revocation.service';
import type { OAuthClientsRepository } from './oauth-clients.repository';
import { API_RESOURCE, CRM_SCOPES, isPublicMethod, OAUTH_TTL, refreshTokenLifetime } from './oauth-policy';
import { createOidcAdapter } from './oidc.adapter';
import type { OidcKeys } from './oidc-keys.repository';
import { renderOAuthErrorPage } from './views/pages';

export interface OidcProviderDeps {
  config: AuthServerConfig;
  dataSource: DataSource;
  redis: RedisClient;
  clients: OAuthClientsRepository;
  identity: IdentityRepository;
  revocations: GrantRevocationService;
  keys: OidcKeys;
  logger: Logger;
}

/** The fields of the spec's discovery document, and nothing else. */
const DISCOVERY_FIELDS = [
  'issuer',
  'registration_endpoint',
  'authorization_endpoint',
  'token_endpoint',
  'response_types_supported',
  'grant_types_supported',
  'token_endpoint_auth_methods_supported',
  'code_challenge_methods_supported',
  'scopes_supported',
  'jwks_uri',
  'authorization_response_iss_parameter_supported',
] as const;

/** Paths served by oidc-provider itself (the interaction pages are ours). */
export const OIDC_PATHS = ['/.well-known/oauth-authorization-server', '/oauth/authorize', '/oauth/token', '/oauth/jwks'];

/**
 * oidc-provider configured to the spec: OAuth 2.1 authorization code with PKCE S256 for every
 * client, refresh tokens (rotated for public clients), JWT access tokens (ES256) whose audience is
 * the user's regional API base URL, and nothing the spec does not list (no userinfo, revocation,
 * introspection, dynamic registration, device flow, PAR, DPoP).
 */
export async function createOidcProvider(deps: OidcProviderDeps): Promise<Provider> {
  // oidc-provider is ESM-only: a real dynamic import from our CommonJS build.
  const { default: ProviderClass, errors } = await import('oidc-provider');
  const { config, identity } = deps;

  const Adapter = createOidcAdapter({
    dataSource: deps.dataSource,
    redis: deps.redis,
    namespace: config.CRM_NAMESPACE,
    clients: deps.clients,
    invalidGrant: (description) => new errors.InvalidGrant(description),
  });

  const baseUrlOfUser = async (userId: string | undefined): Promise<string> => {
    const user = userId ? await identity.findActiveUser(userId) : null;
    return config.regionBaseUrls.get(user?.account.region ?? config.DEFAULT_REGION) ?? config.regionBaseUrls.get(config.DEFAULT_REGION)!;
  };

  const mcpResources = new Set([...config.regionBaseUrls.values()].map(mcpResourceUrl));

  const configuration: Configuration = {
    adapter: Adapter as unknown as Configuration['adapter'],
    clients: [],
    async findAccount(_ctx, sub) {
      const user = await identity.findActiveUser(sub);
      if (!user) return undefined;
      return { accountId: user.id, claims: async () => ({ sub: user.id }) };
    },
    scopes: [...CRM_SCOPES],
    claims: { openid: ['sub'] },
    responseTypes: ['code'],
    clientAuthMethods: ['none', 'client_secret_basic', 'client_secret_post'],
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
      id_token_signed_response_alg: 'ES256',
    },
    pkce: { required: () => true },
    routes: {
      authorization: '/oauth/authorize',
      token: '/oauth/token',
      jwks: '/oauth/jwks',
      registration: '/oauth/register',
      end_session: '/oauth/session/end',
      revocation: '/oauth/revocation',
      introspection: '/oauth/introspection',
      userinfo: '/oauth/userinfo',
    },
    features: {
      devInteractions: { enabled: false },
      userinfo: { enabled: false },
      rpInitiatedLogout: { enabled: false },
      dPoP: { enabled: false },
      pushedAuthorizationRequests: { enabled: false },
      revocation: { enabled: false },
      introspection: { enabled: false },
      registration: { enabled: false },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => API_RESOURCE,
        useGrantedResource: () => true,
        getResourceServerInfo: async (ctx, resource) => {
          const userId = ctx.oidc.entities.Account?.accountId ?? ctx.oidc.session?.accountId;
          // The REST API (audience: the user's regional base URL) or a region's MCP endpoint
          // (RFC 8707 `resource` = its URL, which is also the audience); a user's token is only
          // for the MCP endpoint of the user's own region.
          let audience: string;
          if (resource === API_RESOURCE) audience = await baseUrlOfUser(userId);
          else if (mcpResources.has(resource) && (!userId || resource === mcpResourceUrl(await baseUrlOfUser(userId)))) audience = resource;
          else throw new errors.InvalidTarget();
          return {
            scope: CRM_SCOPES.join(' '),
            audience,
            accessTokenTTL: OAUTH_TTL.accessToken,
            accessTokenFormat: 'jwt',
            // The active key signs; the others are published only (successor ahead of use, predecessor until its tokens expired).
            jwt: { sign: { alg: 'ES256', kid: deps.keys.signingKid } },
          };
        },
      },
    },
    discovery: { registration_endpoint: `${config.AUTH_ISSUER}/oauth/register` },
    jwks: { keys: deps.keys.jwks as NonNullable<Configuration['jwks']>['keys'] },
    cookies: { keys: deps.keys.cookieKeys, long: { httpOnly: true, sameSite: 'lax' }, short: { httpOnly: true, sameSite: 'lax' } },
    ttl: {
      AuthorizationCode: OAUTH_TTL.authorizationCode,
      AccessToken: OAUTH_TTL.accessToken,
      Interaction: 3600,
      Session: 14 * 24 * 3600,
      // The longest absolute lifetime; each refresh token enforces its client type's own maximum.
      Grant: OAUTH_TTL.confidentialRefreshAbsolute,
      RefreshToken: (_ctx, token, client) => {
        const now = Math.floor(Date.now() / 1000);
        return refreshTokenLifetime(
          isPublicMethod(client.tokenEndpointAuthMethod),
          (token as unknown as { iiat?: number }).iiat ?? now,
          now,
        );
      },
    },
    rotateRefreshToken: (ctx) => isPublicMethod(ctx.oidc.client?.tokenEndpointAuthMethod),
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    expiresWithSession: async () => false,
    clientBasedCORS: (_ctx, origin, client) =>
      isPublicMethod(client.tokenEndpointAuthMethod) &&
      client.redirectUris!.some((uri) => {
        try {
          return new URL(uri).origin === origin;
        } catch {
          return false;
        }
      }),
    extraTokenClaims: (_ctx, token) => ({ gid: (token as unknown as { grantId?: string }).grantId }),
    interactions: { url: (_ctx, interaction) => `/oauth/interaction/${interaction.uid}` },
    renderError: async (ctx, out) => {
      // Never redirect an unknown client or an unregistered redirect URI (open redirector).
      const error = out.error === 'invalid_redirect_uri' ? 'invalid_request' : out.error;
      ctx.type = 'html';
      ctx.body = renderOAuthErrorPage(error, out.error_description ?? '');
    },
    allowOmittingSingleRegisteredRedirectUri: true,
  };

  const provider = new ProviderClass(config.AUTH_ISSUER, configuration);
  // Koa believes X-Forwarded-*, but main.ts's forwardedHeaders() rewrote them: the issuer's scheme
  // and host, and the client address derived through AUTH_TRUSTED_PROXIES only.
  provider.proxy = true;

  provider.on('grant.revoked', (_ctx: KoaContextWithOIDC, grantId: string) => {
    void deps.revocations.markRevoked([grantId]).catch((error) => deps.logger.error({ err: error }, 'could not record a revoked grant'));
  });
  provider.on('server_error', (_ctx: KoaContextWithOIDC, error: Error) => deps.logger.error({ err: error }, 'oidc-provider server error'));

  provider.use(async (ctx, next) => {
    if (ctx.path === '/oauth/authorize' && ctx.method === 'GET') await defaultScope(ctx, deps.clients);
    await next();
    if (ctx.path === '/.well-known/oauth-authorization-server' && ctx.status === 200) trimDiscovery(ctx, config.AUTH_ISSUER);
    if (ctx.path === '/oauth/token') await afterToken(ctx as KoaContextWithOIDC, Adapter);
  });
  return provider;
}

/** A missing `scope` means the client's registered scope (the library has no such default). */
async function defaultScope(ctx: { query: Record<string, unknown>; querystring: string }, clients: OAuthClientsRepository): Promise<void> {
  const { client_id: clientId, scope } = ctx.query;
  if (scope !== undefined || typeof clientId !== 'string') return;
  const client = await clients.find(clientId);
  if (!client) return;
  const params = new URLSearchParams(ctx.querystring);
  params.set('scope', client.scope);
  ctx.querystring = params.toString();
}

function trimDiscovery(ctx: { body: unknown; set(field: string, value: string): void }, issuer: string): void {
  const body = ctx.body as Record<string, unknown>;
  const trimmed: Record<string, unknown> = {};
  for (const field of DISCOVERY_FIELDS) if (body[field] !== undefined) trimmed[field] = body[field];
  // From AUTH_ISSUER, whatever Host or X-Forwarded-Host the request carried.
  trimmed.authorization_endpoint = `${issuer}/oauth/authorize`;
  trimmed.token_endpoint = `${issuer}/oauth/token`;
  trimmed.jwks_uri = `${issuer}/oauth/jwks`;
  trimmed.response_types_supported = ['code'];
  trimmed.grant_types_supported = ['authorization_code', 'refresh_token'];
  trimmed.token_endpoint_auth_methods_supported = ['client_secret_basic', 'client_secret_post', 'none'];
  trimmed.code_challenge_methods_supported = ['S256'];
  trimmed.scopes_supported = [...CRM_SCOPES];
  ctx.body = trimmed;
  ctx.set('Access-Control-Allow-Origin', '*');
}

/**
 * Token responses: add `aud` (the account's API base URL, the JWT's audience), map a grant type
 * the client lacks to `unauthorized_client`, and slide a confidential client's refresh token.
 */
async function afterToken(ctx: KoaContextWithOIDC, Adapter: ReturnType<typeof createOidcAdapter>): Promise<void> {
  const body = ctx.body as Record<string, unknown> | undefined;
  if (!body) return;
  if (ctx.status === 200 && typeof body.access_token === 'string') {
    const [, payload] = body.access_token.split('.');
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { aud?: string | string[] };
    ctx.body = { ...body, aud: Array.isArray(claims.aud) ? claims.aud[0] : claims.aud };
    const refreshToken = ctx.oidc.entities.RefreshToken;
    if (refreshToken && !ctx.oidc.entities.RotatedRefreshToken && ctx.oidc.params?.grant_type === 'refresh_token') {
      const now = Math.floor(Date.now() / 1000);
      const lifetime = refreshTokenLifetime(false, (refreshToken as unknown as { iiat?: number }).iiat ?? now, now);
      await Adapter.extendRefreshToken(refreshToken.jti, now + lifetime);
    }
    return;
  }
  if (
    ctx.status === 400 &&
    body.error === 'invalid_request' &&
    typeof body.error_description === 'string' &&
    /grant[ _]type is not allowed for this client/.test(body.error_description)
  ) {
    ctx.body = { ...body, error: 'unauthorized_client' };
  }
}
