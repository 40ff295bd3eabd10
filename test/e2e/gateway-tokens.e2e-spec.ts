import { createHash, generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { decodeJwt, decodeProtectedHeader, importJWK, SignJWT, type JWK, type JWTPayload } from 'jose';
import { Client } from 'pg';
import { registerPublicClient, signInAndConsent, TEST_REDIRECT_URI } from './oauth-helpers';
import { setupE2e, type Json } from './setup';

/**
 * The gateway's checks of OAuth access tokens, on every replica: two gateways (each reading the
 * JWKS of its own auth-server) and two auth-servers sharing one issuer, database and Redis.
 * Tokens that fail one check each are either real ones (expired through the auth-server's test
 * clock, revoked through refresh-token reuse) or real claims signed again: with a key of our own,
 * or with the auth-server's own key read from its database but a wrong issuer or audience.
 */
describe('gateway access-token checks (e2e, two gateways, two auth-servers)', () => {
  const password = 'correct horse battery staple';
  const { services, admin } = setupE2e({
    services: { gatewayReplicas: 2, authServerReplicas: 2, env: { ENABLE_TEST_CLOCK: 'true' } },
    admin: { password },
  });

  const operator = (operatorUrl: string, pathname: string, body: unknown) =>
    fetch(`${operatorUrl}${pathname}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${services.operatorToken}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  /** Shifts the clock of the auth-server whose operator API is at `operatorUrl`. */
  const setClock = (operatorUrl: string, offsetSeconds: number) =>
    operator(operatorUrl, '/operator/test/clock', { offset_seconds: offsetSeconds });
  const tokenRequest = async (authUrl: string, form: Record<string, string>) => {
    const res = await fetch(`${authUrl}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form),
    });
    return { status: res.status, body: (await res.json()) as Json };
  };
  /** GET /users/{id} on one gateway with a bearer token. */
  const read = async (gatewayUrl: string, token: string) => {
    const res = await fetch(`${gatewayUrl}/api/v3/users/${admin.user.id}`, { headers: { authorization: `Bearer ${token}` } });
    return { status: res.status, body: (await res.json()) as Json };
  };

  const publicClient = () => registerPublicClient(services, 'crm crm.readonly');

  /** The code flow in a browser on the first auth-server (the issuer's origin), then the code exchanged at `tokenUrl`. */
  async function obtainTokens(clientId: string, tokenUrl = services.authUrl): Promise<{ access_token: string; refresh_token: string }> {
    const verifier = randomBytes(32).toString('base64url');
    const authorize = new URL(`${services.authUrl}/oauth/authorize`);
    authorize.search = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: TEST_REDIRECT_URI,
      state: randomBytes(8).toString('hex'),
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
    }).toString();
    const code = await signInAndConsent(services, authorize, admin, password);
    const tokens = await tokenRequest(tokenUrl, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: TEST_REDIRECT_URI,
      code_verifier: verifier,
      client_id: clientId,
    });
    expect(tokens.status).toBe(200);
    return tokens.body as { access_token: string; refresh_token: string };
  }

  /** Every gateway accepts the token (the control that makes a refusal mean something). */
  async function expectAcceptedEverywhere(token: string): Promise<void> {
    for (const gatewayUrl of services.gatewayUrls)
      expect({ gatewayUrl, status: (await read(gatewayUrl, token)).status }).toEqual({ gatewayUrl, status: 200 });
  }

  /** Every gateway refuses the token as an invalid access token (401, body status 400). */
  async function expectRefusedEverywhere(token: string, message?: string): Promise<void> {
    for (const gatewayUrl of services.gatewayUrls) {
      const res = await read(gatewayUrl, token);
      expect({ gatewayUrl, status: res.status, error_name: res.body.error_name }).toEqual({
        gatewayUrl,
        status: 401,
        error_name: 'invalid_access_token',
      });
      if (message) expect(res.body.error_message).toBe(message);
    }
  }

  /** The auth-server's private signing key with this kid, from its database (what only the auth-server holds). */
  async function signingKey(kid: string): Promise<JWK> {
    const db = new Client({ connectionString: services.database.url });
    await db.connect();
    try {
      const { rows } = await db.query<{ value: Array<{ jwk?: JWK } & JWK> }>("SELECT value FROM auth.secrets WHERE name = 'signing_keys'");
      const jwk = rows[0].value.map((entry) => entry.jwk ?? entry).find((key) => key.kid === kid);
      if (!jwk) throw new Error(`no signing key ${kid} in auth.secrets`);
      return jwk;
    } finally {
      await db.end();
    }
  }

  const sign = async (claims: JWTPayload, key: Parameters<SignJWT['sign']>[0], kid: string) =>
    new SignJWT({ ...claims, jti: randomUUID() }).setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid }).sign(key);

  afterEach(async () => {
    for (const operatorUrl of services.operatorUrls) await setClock(operatorUrl, 0);
  });

  it('runs two gateways and two auth-servers, all serving the same issuer', async () => {
    expect(services.gatewayUrls).toHaveLength(2);
    expect(services.authUrls).toHaveLength(2);
    for (const authUrl of services.authUrls) {
      const doc = (await (await fetch(`${authUrl}/.well-known/oauth-authorization-server`)).json()) as Json;
      // Built from AUTH_ISSUER: the second replica's own origin appears nowhere.
      expect(doc).toMatchObject({
        issuer: services.authUrl,
        authorization_endpoint: `${services.authUrl}/oauth/authorize`,
        token_endpoint: `${services.authUrl}/oauth/token`,
        jwks_uri: `${services.authUrl}/oauth/jwks`,
      });
    }
  });

  it('refuses an expired access token on every gateway', async () => {
    const clientId = await publicClient();
    const { refresh_token } = await obtainTokens(clientId);
    // Issued by an auth-server whose clock runs an hour and two minutes behind: expired two minutes ago.
    expect((await setClock(services.operatorUrl, -(3600 + 120))).status).toBe(201);
    const refreshed = await tokenRequest(services.authUrl, { grant_type: 'refresh_token', refresh_token, client_id: clientId });
    expect(refreshed.status).toBe(200);
    await setClock(services.operatorUrl, 0);
    const claims = decodeJwt(refreshed.body.access_token as string);
    expect(claims.exp! * 1000).toBeLessThan(Date.now() - 60_000);
    expect(claims).toMatchObject({ iss: services.authUrl, aud: admin.account.base_url, sub: admin.user.id });
    await expectRefusedEverywhere(refreshed.body.access_token as string, 'The access token has expired');
  });

  it('refuses a token signed by a key the auth-server does not publish, under a new kid or under its own', async () => {
    const { access_token } = await obtainTokens(await publicClient());
    await expectAcceptedEverywhere(access_token);
    const claims = decodeJwt(access_token);
    const { kid } = decodeProtectedHeader(access_token);
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    await expectRefusedEverywhere(await sign(claims, privateKey, randomBytes(12).toString('base64url')));
    await expectRefusedEverywhere(await sign(claims, privateKey, kid!));
  });

  it("refuses the auth-server's own signature over a wrong issuer or a wrong audience", async () => {
    const { access_token } = await obtainTokens(await publicClient());
    const claims = decodeJwt(access_token);
    const { kid } = decodeProtectedHeader(access_token);
    const key = await importJWK(await signingKey(kid!), 'ES256');
    // Control: the same claims signed again the same way pass, so only the changed claim can fail.
    await expectAcceptedEverywhere(await sign(claims, key, kid!));
    await expectRefusedEverywhere(await sign({ ...claims, iss: 'https://auth.attacker.example' }, key, kid!));
    await expectRefusedEverywhere(await sign({ ...claims, iss: `${services.authUrl}/` }, key, kid!));
    await expectRefusedEverywhere(await sign({ ...claims, aud: 'https://api.attacker.example/api/v3' }, key, kid!));
    await expectRefusedEverywhere(await sign({ ...claims, aud: undefined }, key, kid!));
  });

  it('refuses every token of a family on every gateway within 1 s of a refresh-token reuse, whichever auth-server saw it', async () => {
    const clientId = await publicClient();
    const first = await obtainTokens(clientId);
    // Rotated on the second auth-server, replayed on the first.
    const rotated = await tokenRequest(services.authUrls[1], {
      grant_type: 'refresh_token',
      refresh_token: first.refresh_token,
      client_id: clientId,
    });
    expect(rotated.status).toBe(200);
    const access = rotated.body.access_token as string;
    await expectAcceptedEverywhere(access);

    const replay = await tokenRequest(services.authUrls[0], {
      grant_type: 'refresh_token',
      refresh_token: first.refresh_token,
      client_id: clientId,
    });
    expect(replay).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    const deadline = Date.now() + 1000;
    const lastAnswers = await Promise.all(
      services.gatewayUrls.map(async (gatewayUrl) => {
        // Poll each replica until it refuses, asking for the last time no later than the deadline.
        let status = (await read(gatewayUrl, access)).status;
        while (status === 200 && Date.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, 25));
          status = (await read(gatewayUrl, access)).status;
        }
        return { gatewayUrl, status };
      }),
    );
    expect(lastAnswers).toEqual(services.gatewayUrls.map((gatewayUrl) => ({ gatewayUrl, status: 401 })));
    await expectRefusedEverywhere(access, 'The access token has been revoked');
    await expectRefusedEverywhere(first.access_token, 'The access token has been revoked');
    const afterReplay = await tokenRequest(services.authUrls[1], {
      grant_type: 'refresh_token',
      refresh_token: rotated.body.refresh_token as string,
      client_id: clientId,
    });
    expect(afterReplay.body.error).toBe('invalid_grant');
  });
});
