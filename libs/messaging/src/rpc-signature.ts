import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';

/**
 * Signatures of NATS requests (decisions.md "NATS trust boundary"). The sender signs the subject
 * it publishes on, a SHA-256 of the request's bytes (the caller, the payload and the origin are all
 * in them) and an expiry, with an Ed25519 key; the consumer checks the signature against the
 * public keys it is configured with before any handler runs. A process that can reach NATS but
 * holds no signing key cannot act as anyone, cannot re-send a captured request to another subject
 * and cannot replay it once it has expired (nor, on the same replica, before).
 *
 * Header value: `v1.<key id>.<expiry, ms since the epoch>.<signature, base64url>`.
 */
const VERSION = 'v1';
const DOMAIN = 'crm-rpc-signature-v1';
/** Added to the caller's own timeout: time in transit and clock skew between hosts. */
export const SIGNATURE_GRACE_MS = 5_000;
/** The furthest expiry a consumer accepts (a signer's clock far ahead is refused, not trusted for long). */
export const MAX_SIGNATURE_TTL_MS = 5 * 60_000;
/** Verify keys a consumer accepts at once: the current signing key and the one being rotated in or out (and spares). */
export const MAX_VERIFY_KEYS = 4;
const KEYS_HOW = '`npm start` generates a pair in .local/secrets.env; see README "Configuration"';
/** Signatures a consumer remembers to refuse a replay before its expiry. */
const MAX_REMEMBERED = 100_000;

const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const SPKI_ED25519_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/** Why a request was refused: the label of the refusal metric and the log line. */
export type RefusalReason = 'unsigned' | 'malformed' | 'unknown_key' | 'bad_signature' | 'expired' | 'too_far_ahead' | 'replayed';

function decodeBase64(text: string): Buffer | undefined {
  const clean = text.trim();
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(clean)) return undefined;
  return Buffer.from(clean.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
}

/**
 * An Ed25519 private key from a setting: base64 (or base64url) of its 32 raw bytes, as
 * `npm start` generates it, or a PKCS#8 PEM (`openssl genpkey -algorithm ed25519`).
 */
export function parseSigningKey(text: string): KeyObject {
  const value = text.trim();
  if (value === '') throw new Error('no key given');
  if (value.includes('-----BEGIN')) {
    const key = createPrivateKey(value.replace(/\\n/g, '\n'));
    if (key.asymmetricKeyType !== 'ed25519') throw new Error('the PEM is not an Ed25519 private key');
    return key;
  }
  const raw = decodeBase64(value);
  if (!raw || raw.length !== 32) throw new Error('expected base64 of 32 bytes (an Ed25519 private key) or a PKCS#8 PEM');
  return createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, raw]), format: 'der', type: 'pkcs8' });
}

/** Ed25519 public keys from a setting: comma-separated, each base64 of its 32 raw bytes or an SPKI PEM. */
export function parseVerifyKeys(text: string): KeyObject[] {
  const items = text
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
  if (items.length === 0) throw new Error('no key given');
  if (items.length > MAX_VERIFY_KEYS) throw new Error(`at most ${MAX_VERIFY_KEYS} keys`);
  return items.map((item, i) => {
    try {
      if (item.includes('-----BEGIN')) {
        const key = createPublicKey(item.replace(/\\n/g, '\n'));
        if (key.asymmetricKeyType !== 'ed25519') throw new Error('not an Ed25519 public key');
        return key;
      }
      const raw = decodeBase64(item);
      if (!raw || raw.length !== 32) throw new Error('expected base64 of 32 bytes or an SPKI PEM');
      return createPublicKey({ key: Buffer.concat([SPKI_ED25519_PREFIX, raw]), format: 'der', type: 'spki' });
    } catch (error) {
      throw new Error(`key ${i + 1}: ${(error as Error).message}`);
    }
  });
}

/** The first 12 characters of the base64url SHA-256 of the raw public key: names the key in headers and logs. */
export function keyIdOf(key: KeyObject): string {
  const publicKey = key.type === 'private' ? createPublicKey(key) : key;
  const raw = publicKey.export({ format: 'der', type: 'spki' }).subarray(SPKI_ED25519_PREFIX.length);
  return createHash('sha256').update(raw).digest('base64url').slice(0, 12);
}

/** A fresh key pair as the settings take it (base64url of the raw 32 bytes each: the JWK's d and x), for scripts and tests. */
export function generateCallerKeyPair(): { signingKey: string; verifyKey: string } {
  const { d, x } = generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' });
  return { signingKey: d!, verifyKey: x! };
}

function signedBytes(subject: string, expiresAt: number, data: Uint8Array): Buffer {
  const digest = createHash('sha256').update(data).digest('base64url');
  return Buffer.from(`${DOMAIN}\n${subject}\n${expiresAt}\n${digest}`);
}

/** Signs requests for the subject they are published on; held by the services that authenticate users. */
export class RpcSigner {
  private readonly key: KeyObject;
  readonly keyId: string;

  constructor(
    signingKey: string,
    private readonly now: () => number = Date.now,
  ) {
    if (signingKey.trim() === '')
      throw new Error(`CALLER_SIGNING_KEY is required: the Ed25519 key that signs this service's NATS requests (${KEYS_HOW})`);
    this.key = parseSigningKey(signingKey);
    this.keyId = keyIdOf(this.key);
  }

  /** The header value for `data` published on `subject` (namespaced), valid for `ttlMs` + {@link SIGNATURE_GRACE_MS}. */
  sign(subject: string, data: Uint8Array, ttlMs: number): string {
    const expiresAt = this.now() + ttlMs + SIGNATURE_GRACE_MS;
    const signature = sign(null, signedBytes(subject, expiresAt, data), this.key).toString('base64url');
    return `${VERSION}.${this.keyId}.${expiresAt}.${signature}`;
  }
}

/**
 * Checks request signatures with the configured public keys (two during a rotation), refuses
 * expired ones and remembers the ones it accepted until they expire, so the same request is not
 * taken twice by this process.
 */
export class RpcVerifier {
  private readonly keys: Map<string, KeyObject>;
  /** Accepted signatures -> their expiry; insertion order is acceptance order. */
  private readonly seen = new Map<string, number>();

  constructor(
    verifyKeys: string,
    private readonly now: () => number = Date.now,
  ) {
    if (verifyKeys.trim() === '')
      throw new Error(
        `CALLER_VERIFY_KEYS is required: the public keys whose signatures this service accepts on NATS requests (${KEYS_HOW})`,
      );
    this.keys = new Map(parseVerifyKeys(verifyKeys).map((key) => [keyIdOf(key), key]));
  }

  get keyIds(): string[] {
    return [...this.keys.keys()];
  }

  /** Undefined when `header` is a valid, fresh signature of `data` on `subject`; else why not. */
  check(subject: string, data: Uint8Array, header: string | undefined): RefusalReason | undefined {
    if (!header) return 'unsigned';
    const parts = header.split('.');
    if (parts.length !== 4 || parts[0] !== VERSION || !/^\d{1,15}$/.test(parts[2]!) || !/^[A-Za-z0-9_-]{86}$/.test(parts[3]!))
      return 'malformed';
    const [, keyId, expiry, signature] = parts as [string, string, string, string];
    const key = this.keys.get(keyId);
    if (!key) return 'unknown_key';
    const expiresAt = Number(expiry);
    if (!verify(null, signedBytes(subject, expiresAt, data), key, Buffer.from(signature, 'base64url'))) return 'bad_signature';
    const now = this.now();
    if (expiresAt < now) return 'expired';
    if (expiresAt > now + MAX_SIGNATURE_TTL_MS) return 'too_far_ahead';
    this.forgetExpired(now);
    if (this.seen.has(signature)) return 'replayed';
    this.seen.set(signature, expiresAt);
    if (this.seen.size > MAX_REMEMBERED) this.seen.delete(this.seen.keys().next().value!);
    return undefined;
  }

  private forgetExpired(now: number): void {
    // Expiries grow roughly with acceptance order; stop at the first one still valid.
    for (const [signature, expiresAt] of this.seen) {
      if (expiresAt >= now) break;
      this.seen.delete(signature);
    }
  }
}
