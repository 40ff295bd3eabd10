import { ApiError, ErrorName, type Caller } from '@crm/contracts';
import type { IncomingHttpHeaders } from 'node:http';
import { GatewayConfig } from '../config/gateway.config';
import { ApiAuthenticator, parseAuthorization } from './api-authenticator';
import type { BearerTokenVerifier } from './bearer-token.verifier';
import type { CredentialsVerifier } from './credentials.verifier';

const basic = (s: string) => `Basic ${Buffer.from(s).toString('base64')}`;

describe('parseAuthorization', () => {
  it('reads HTTP Basic user_id and api_key (the key may contain colons)', () => {
    expect(parseAuthorization(basic('u1:k:e:y'))).toEqual({ scheme: 'basic', userId: 'u1', apiKey: 'k:e:y' });
  });

  it('reads a bearer token in any letter case of the scheme', () => {
    expect(parseAuthorization('bearer abc.def')).toEqual({ scheme: 'bearer', token: 'abc.def' });
  });

  it('tells missing from malformed credentials', () => {
    expect(parseAuthorization(undefined)).toEqual({ scheme: 'none' });
    expect(parseAuthorization('  ')).toEqual({ scheme: 'none' });
    expect(parseAuthorization('Basic')).toEqual({ scheme: 'malformed' });
    expect(parseAuthorization(basic('no-colon'))).toEqual({ scheme: 'malformed' });
    expect(parseAuthorization('Digest x')).toEqual({ scheme: 'malformed' });
  });
});

describe('ApiAuthenticator', () => {
  const caller: Caller = { account_id: 'a1', user_id: 'u1', role: 'user', auth_method: 'api_key', scopes: ['crm'] };
  const verifier = { verifyApiKey: async () => caller } as unknown as CredentialsVerifier;
  const bearer = {
    verify: async () => {
      throw new ApiError(ErrorName.InvalidAccessToken, 'The access token has "expired"');
    },
  } as unknown as BearerTokenVerifier;
  const authenticator = new ApiAuthenticator(
    verifier,
    bearer,
    Object.assign(new GatewayConfig(), { PUBLIC_URL: 'https://crm.example.com' }),
  );
  const refusal = (headers: IncomingHttpHeaders) =>
    authenticator.authenticate(headers).then(
      () => undefined,
      (error: ApiError) => error,
    );

  it('takes an API key from the API itself or from no browser page', async () => {
    await expect(authenticator.authenticate({ authorization: basic('u1:key') })).resolves.toBe(caller);
    await expect(authenticator.authenticate({ authorization: basic('u1:key'), origin: 'https://crm.example.com' })).resolves.toBe(caller);
    expect(await refusal({ authorization: basic('u1:key'), origin: 'https://app.example.com' })).toMatchObject({
      errorName: ErrorName.InvalidLogin,
    });
  });

  it('challenges both schemes on a 401, and says why a bearer token was refused', async () => {
    const missing = await refusal({});
    expect(missing).toMatchObject({ errorName: ErrorName.AuthorizationDataNotFound });
    expect(missing?.headers['WWW-Authenticate']).toBe('Basic realm="CRM API v3", charset="UTF-8", Bearer realm="CRM API v3"');
    const token = await refusal({ authorization: 'Bearer abc' });
    expect(token?.headers['WWW-Authenticate']).toBe(
      'Bearer realm="CRM API v3", error="invalid_token", error_description="The access token has expired"',
    );
  });
});
