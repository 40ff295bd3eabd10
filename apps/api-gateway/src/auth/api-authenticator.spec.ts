import { parseAuthorization } from './api-authenticator';

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
