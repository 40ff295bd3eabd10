/** Token lifetimes of the spec ("Token lifetimes"); policy, clients follow expires_in. */
export const OAUTH_TTL = {
  authorizationCode: 10 * 60,
  accessToken: 60 * 60,
  publicRefreshIdle: 7 * 24 * 3600,
  publicRefreshAbsolute: 90 * 24 * 3600,
  confidentialRefreshIdle: 30 * 24 * 3600,
  confidentialRefreshAbsolute: 365 * 24 * 3600,
} as const;

export const CRM_SCOPES = ['crm', 'crm.readonly', 'mcp'] as const;

/** The API as an OAuth resource server; every access token is a JWT for it. */
export const API_RESOURCE = 'urn:crm:api:v3';

export function isPublicMethod(method: string | undefined): boolean {
  return method === 'none';
}

/** Seconds a refresh token may live from `now`: its idle TTL, never past the absolute maximum. */
export function refreshTokenLifetime(isPublic: boolean, initialIssuedAt: number, now: number): number {
  const idle = isPublic ? OAUTH_TTL.publicRefreshIdle : OAUTH_TTL.confidentialRefreshIdle;
  const absolute = isPublic ? OAUTH_TTL.publicRefreshAbsolute : OAUTH_TTL.confidentialRefreshAbsolute;
  return Math.max(0, Math.min(idle, initialIssuedAt + absolute - now));
}

/** Registered redirect URIs: https, or http on localhost / 127.0.0.1 for development. */
export function redirectUriProblem(uri: string): string | null {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return 'is not an absolute URL';
  }
  if (url.hash) return 'must not contain a fragment';
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:' && (url.hostname === 'localhost' || url.hostname === '127.0.0.1')) return null;
  if (url.protocol === 'http:') return 'http is allowed only for localhost and 127.0.0.1';
  return 'custom URI schemes are not allowed; use https';
}
