import { createHmac, randomBytes, scrypt as scryptCb, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const scrypt = promisify(scryptCb) as (
  password: string,
  salt: Buffer,
  keylen: number,
  options: { N: number; r: number; p: number; maxmem: number },
) => Promise<Buffer>;

/** A new API key: 32 random bytes, base64url (43 characters). Shown once, stored only as a hash. */
export function generateApiKey(): string {
  return randomBytes(32).toString('base64url');
}

/** Keyed SHA-256 (HMAC) of an API key: fast enough for every request, useless without the pepper. */
export function hashApiKey(pepper: string, apiKey: string): string {
  return createHmac('sha256', pepper).update(apiKey, 'utf8').digest('hex');
}

/** Constant-time comparison of two hex digests or tokens. */
export function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  return left.length === right.length && timingSafeEqual(left, right);
}

const SCRYPT = { N: 2 ** 15, r: 8, p: 1, keylen: 32 };

/** scrypt password hash in the form `scrypt$N$r$p$salt$hash` (base64url parts). */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scrypt(password, salt, SCRYPT.keylen, { N: SCRYPT.N, r: SCRYPT.r, p: SCRYPT.p, maxmem: 64 * 1024 * 1024 });
  return ['scrypt', SCRYPT.N, SCRYPT.r, SCRYPT.p, salt.toString('base64url'), hash.toString('base64url')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const actual = await scrypt(password, Buffer.from(salt, 'base64url'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: 64 * 1024 * 1024,
  });
  return timingSafeEqual(expected, actual);
}

const SEALING_DOMAIN = 'crm sealed values v1';

function sealMac(key: string, context: string, payload: string): string {
  const derived = createHmac('sha256', key).update(SEALING_DOMAIN).digest();
  return createHmac('sha256', derived).update(context).update('\n').update(payload).digest('base64url');
}

/**
 * `payload` with an HMAC over it and `context` (what and whose it is), as `<mac>.<payload>`: a
 * reader holding the same key can tell it was written by a holder of the key and for that context.
 * For values services pass through a shared store (Redis) that must not be forgeable by whoever can
 * write to that store.
 */
export function sealValue(key: string, context: string, payload: string): string {
  return `${sealMac(key, context, payload)}.${payload}`;
}

/** The payload of a {@link sealValue} result, or null if it was not sealed with `key` for `context`. */
export function openSealedValue(key: string, context: string, sealed: string): string | null {
  const dot = sealed.indexOf('.');
  if (dot <= 0) return null;
  const payload = sealed.slice(dot + 1);
  return safeEqual(sealed.slice(0, dot), sealMac(key, context, payload)) ? payload : null;
}
