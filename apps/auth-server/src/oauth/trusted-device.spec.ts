import { TRUSTED_DEVICE_COOKIE, TRUSTED_DEVICE_TTL_SECONDS, TrustedDevices } from './trusted-device';

describe('TrustedDevices', () => {
  const devices = new TrustedDevices(() => 'cookie-key-one');
  const now = 1_800_000_000;
  const cookie = (value: string) => `other=1; ${TRUSTED_DEVICE_COOKIE}=${value}; last=2`;

  it('trusts the browser that signed in as this email, until the cookie expires', () => {
    const value = devices.issue('Ann@Example.test', now);
    expect(devices.trusts(cookie(value), ' ann@example.test', now + 60)).toBe(true);
    expect(devices.trusts(cookie(value), 'ann@example.test', now + TRUSTED_DEVICE_TTL_SECONDS)).toBe(false);
  });

  it('trusts no other email, no forged or altered value, and no other key', () => {
    const value = devices.issue('ann@example.test', now);
    const [tag, expires, mac] = value.split('.');
    expect(devices.trusts(cookie(value), 'bob@example.test', now)).toBe(false);
    expect(devices.trusts(cookie(`${tag}.${Number(expires) + 1000}.${mac}`), 'ann@example.test', now)).toBe(false);
    expect(devices.trusts(cookie(`${tag}.${expires}.${mac.slice(1)}A`), 'ann@example.test', now)).toBe(false);
    expect(devices.trusts(cookie(`${value}.x`), 'ann@example.test', now)).toBe(false);
    expect(devices.trusts(undefined, 'ann@example.test', now)).toBe(false);
    expect(devices.trusts(cookie('x'.repeat(5000)), 'ann@example.test', now)).toBe(false);
    expect(new TrustedDevices(() => 'cookie-key-two').trusts(cookie(value), 'ann@example.test', now)).toBe(false);
  });
});
