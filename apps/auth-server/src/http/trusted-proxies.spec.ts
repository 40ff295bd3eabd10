import { ConfigError, loadConfig } from '@crm/config';
import express, { type Request } from 'express';
import type { AddressInfo } from 'node:net';
import { AuthServerConfig } from '../config/auth-server.config';
import { forwardedHeaders, throttleSource, trustedProxyProblems, trustProxySetting } from './trusted-proxies';

describe('trusted proxies', () => {
  it('accepts addresses, CIDRs and the named ranges, and names everything else', () => {
    expect(trustedProxyProblems(['10.0.0.0/8', '192.168.1.7', 'fd00::/8', '::1', 'loopback', 'uniquelocal'])).toEqual([]);
    const problems = trustedProxyProblems(['10.0.0.0/33', 'proxy.internal', '1.2.3.4/8/1', 'fd00::/129', 'true', '*']);
    expect(problems).toHaveLength(6);
    expect(problems[1]).toContain('"proxy.internal" is not an IP address');
    expect(trustProxySetting([])).toBe(false);
  });

  it('AUTH_TRUSTED_PROXIES: none by default; a bad entry stops the start naming the variable', () => {
    expect(loadConfig(AuthServerConfig, {}).trustedProxies).toEqual([]);
    expect(loadConfig(AuthServerConfig, { AUTH_TRUSTED_PROXIES: ' 10.0.0.0/8, loopback ' }).trustedProxies).toEqual([
      '10.0.0.0/8',
      'loopback',
    ]);
    expect(() => loadConfig(AuthServerConfig, { AUTH_TRUSTED_PROXIES: '10.0.0.0/8,true' })).toThrow(ConfigError);
    expect(() => loadConfig(AuthServerConfig, { AUTH_TRUSTED_PROXIES: 'true' })).toThrow(
      /AUTH_TRUSTED_PROXIES: "true" is not an IP address/,
    );
  });

  it('keys IPv4 sources by address and IPv6 sources by their /64', () => {
    expect(throttleSource('203.0.113.9')).toBe('203.0.113.9');
    expect(throttleSource('::ffff:203.0.113.9')).toBe('203.0.113.9');
    expect(throttleSource('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(throttleSource('2001:db8:1:2:bbbb:cccc:dddd:eeee')).toBe('2001:db8:1:2::/64');
    expect(throttleSource('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(throttleSource('::1')).toBe('0:0:0:0::/64');
    expect(throttleSource(undefined)).toBe('unknown');
  });

  describe('forwardedHeaders behind Express', () => {
    async function request(trusted: string[], headers: Record<string, string>) {
      const app = express();
      app.set('trust proxy', trustProxySetting(trusted));
      app.use(forwardedHeaders('https://auth.example.com'));
      app.get('/', (req: Request, res) => {
        res.json({
          ip: req.ip,
          xff: req.headers['x-forwarded-for'],
          host: req.headers['x-forwarded-host'],
          proto: req.headers['x-forwarded-proto'],
          forwarded: req.headers.forwarded ?? null,
        });
      });
      const server = app.listen(0, '127.0.0.1');
      await new Promise((resolve) => server.once('listening', resolve));
      try {
        const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, { headers });
        return (await res.json()) as Record<string, string | null>;
      } finally {
        await new Promise((resolve) => server.close(resolve));
      }
    }
    const spoofed = {
      'x-forwarded-for': '198.51.100.1, 203.0.113.7',
      'x-forwarded-host': 'evil.example',
      'x-forwarded-proto': 'http',
      forwarded: 'for=198.51.100.1;host=evil.example',
    };

    it('ignores every forwarding header from a peer that is not a trusted proxy', async () => {
      expect(await request([], spoofed)).toEqual({
        ip: '127.0.0.1',
        xff: '127.0.0.1',
        host: 'auth.example.com',
        proto: 'https',
        forwarded: null,
      });
      expect((await request(['10.0.0.0/8'], spoofed)).ip).toBe('127.0.0.1');
    });

    it('takes the client from X-Forwarded-For through trusted hops only, and still the issuer as host', async () => {
      expect(await request(['127.0.0.1'], spoofed)).toMatchObject({ ip: '203.0.113.7', xff: '203.0.113.7', host: 'auth.example.com' });
      expect(await request(['127.0.0.1', '203.0.113.0/24'], spoofed)).toMatchObject({ ip: '198.51.100.1', xff: '198.51.100.1' });
    });
  });
});
