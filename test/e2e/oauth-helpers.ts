import type { CreatedAccount, ServicesHandle } from '@crm/testing';
import { createHash, randomBytes } from 'node:crypto';

type Services = Pick<ServicesHandle, 'authUrl' | 'operatorUrl' | 'operatorToken'>;

export const TEST_REDIRECT_URI = 'http://127.0.0.1:8765/callback';

/** POST /operator/clients: a public client (PKCE) with `scope`, redirecting to {@link TEST_REDIRECT_URI}. */
export async function registerPublicClient(services: Services, scope: string): Promise<string> {
  const res = await fetch(`${services.operatorUrl}/operator/clients`, {
    method: 'POST',
    headers: { authorization: `Bearer ${services.operatorToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: `Test ${scope}`, redirect_uris: [TEST_REDIRECT_URI], scope, token_endpoint_auth_method: 'none' }),
  });
  if (res.status !== 201) throw new Error(`POST /operator/clients answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { client_id: string }).client_id;
}

/**
 * A browser with a cookie jar on the auth-server's pages: follows the authorization request
 * through sign-in and consent and returns the code of the callback.
 */
export async function signInAndConsent(services: Services, authorizationUrl: URL, who: CreatedAccount, password: string): Promise<string> {
  const callback = await signInAndConsentCallback(services, authorizationUrl, who, password);
  const code = callback.searchParams.get('code');
  if (!code) throw new Error(`the callback carries no code: ${callback.href}`);
  return code;
}

/** As {@link signInAndConsent}, returning the whole callback URL (code, state, iss) the browser is sent to. */
export async function signInAndConsentCallback(
  services: Services,
  authorizationUrl: URL,
  who: CreatedAccount,
  password: string,
): Promise<URL> {
  const cookies = new Map<string, string>();
  const go = async (url: string, form?: Record<string, string>) => {
    const res = await fetch(new URL(url, services.authUrl), {
      method: form ? 'POST' : 'GET',
      redirect: 'manual',
      headers: { cookie: [...cookies.values()].join('; '), ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
      body: form ? new URLSearchParams(form) : undefined,
    });
    for (const c of res.headers.getSetCookie()) cookies.set(c.split('=')[0], c.split(';')[0]);
    return res;
  };
  const field = (html: string, name: string) => new RegExp(`name="${name}" value="([^"]+)"`).exec(html)?.[1] ?? '';
  const uid = (html: string) => /\/oauth\/interaction\/([^/"]+)\//.exec(html)?.[1] ?? '';
  let res = await go(authorizationUrl.href);
  if (res.status !== 303) throw new Error(`authorize answered ${res.status}: ${await res.text()}`);
  let html = await (await go(res.headers.get('location')!)).text();
  res = await go(`/oauth/interaction/${uid(html)}/login`, { csrf: field(html, 'csrf'), email: who.user.email, password });
  res = await go(res.headers.get('location')!);
  html = await (await go(res.headers.get('location')!)).text();
  if (!html.includes('wants access')) throw new Error(`no consent page: ${html.slice(0, 300)}`);
  res = await go(`/oauth/interaction/${uid(html)}/confirm`, { csrf: field(html, 'csrf') });
  res = await go(res.headers.get('location')!);
  return new URL(res.headers.get('location')!);
}

/** An access token of `scope` for the REST API, for `who`, through a new public client's whole flow. */
export async function restAccessToken(services: Services, who: CreatedAccount, password: string, scope: string): Promise<string> {
  const clientId = await registerPublicClient(services, scope);
  const verifier = randomBytes(32).toString('base64url');
  const url = new URL(`${services.authUrl}/oauth/authorize`);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: TEST_REDIRECT_URI,
    scope,
    state: randomBytes(8).toString('hex'),
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
  }).toString();
  const code = await signInAndConsent(services, url, who, password);
  const res = await fetch(`${services.authUrl}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: TEST_REDIRECT_URI,
      client_id: clientId,
      code_verifier: verifier,
    }),
  });
  if (res.status !== 200) throw new Error(`token endpoint answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { access_token: string }).access_token;
}
