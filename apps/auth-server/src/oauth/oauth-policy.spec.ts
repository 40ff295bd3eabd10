import { OAUTH_TTL, redirectUriProblem, refreshTokenLifetime } from './oauth-policy';

describe('refresh token lifetime', () => {
  const day = 24 * 3600;
  it('is the idle TTL while the absolute maximum is far', () => {
    expect(refreshTokenLifetime(true, 1000, 1000)).toBe(OAUTH_TTL.publicRefreshIdle);
    expect(refreshTokenLifetime(false, 1000, 1000)).toBe(OAUTH_TTL.confidentialRefreshIdle);
  });
  it('never reaches past the absolute maximum, which never resets', () => {
    expect(refreshTokenLifetime(true, 0, 88 * day)).toBe(2 * day);
    expect(refreshTokenLifetime(false, 0, 360 * day)).toBe(5 * day);
    expect(refreshTokenLifetime(true, 0, 91 * day)).toBe(0);
  });
});

describe('redirect URI rules', () => {
  it('accepts https and http on localhost or 127.0.0.1', () => {
    for (const uri of ['https://app.example/cb', 'http://localhost:8080/cb', 'http://127.0.0.1/cb'])
      expect(redirectUriProblem(uri)).toBeNull();
  });
  it('rejects custom schemes, other http hosts, fragments and garbage', () => {
    expect(redirectUriProblem('myapp://cb')).toMatch(/custom/);
    expect(redirectUriProblem('http://example.com/cb')).toMatch(/localhost/);
    expect(redirectUriProblem('https://a.example/cb#x')).toMatch(/fragment/);
    expect(redirectUriProblem('not a url')).toMatch(/absolute/);
  });
});
