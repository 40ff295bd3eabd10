import { safeEqual } from '@crm/common';
import { createHash, createHmac } from 'node:crypto';

export const TRUSTED_DEVICE_COOKIE = 'crm_device';
/** Path of the login form posts: the cookie goes nowhere else. */
export const TRUSTED_DEVICE_PATH = '/oauth/interaction';
export const TRUSTED_DEVICE_TTL_SECONDS = 180 * 86400;
const MAX_COOKIE_LENGTH = 200;

/**
 * A browser that signed in as an email before (OWASP's "device cookie"): an HMAC over a digest of
 * the email and an expiry, keyed with the provider's cookie key. It exempts that browser from the
 * per-email ceiling of the login throttle, so guesses from strangers cannot lock the owner out of
 * a browser they already used. It proves nothing else and is bound to one email.
 */
export class TrustedDevices {
  constructor(private readonly key: () => string) {}

  /** The cookie value for a successful sign-in as `email`. */
  issue(email: string, now = Math.floor(Date.now() / 1000)): string {
    const tag = subjectTag(email);
    const expires = now + TRUSTED_DEVICE_TTL_SECONDS;
    return `${tag}.${expires}.${this.mac(tag, expires)}`;
  }

  /** Whether the request's Cookie header holds a valid device cookie for `email`. */
  trusts(cookieHeader: string | undefined, email: string, now = Math.floor(Date.now() / 1000)): boolean {
    const value = readCookie(cookieHeader, TRUSTED_DEVICE_COOKIE);
    if (!value || value.length > MAX_COOKIE_LENGTH) return false;
    const [tag, expiresText, mac, extra] = value.split('.');
    if (extra !== undefined || !tag || !mac || !/^\d{1,12}$/.test(expiresText ?? '')) return false;
    const expires = Number(expiresText);
    return tag === subjectTag(email) && expires > now && safeEqual(mac, this.mac(tag, expires));
  }

  private mac(tag: string, expires: number): string {
    return createHmac('sha256', this.key()).update(`trusted-device:${tag}:${expires}`).digest('base64url');
  }
}

function subjectTag(email: string): string {
  return createHash('sha256').update(`device:${email.trim().toLowerCase()}`).digest('base64url').slice(0, 22);
}

function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const i = part.indexOf('=');
    if (i > 0 && part.slice(0, i).trim() === name) return part.slice(i + 1).trim();
  }
  return undefined;
}
