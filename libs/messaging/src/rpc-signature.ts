import { createHmac, hash, randomBytes, timingSafeEqual } from 'node:crypto';
import { consumerOfPublished, RPC_CONSUMERS, type RpcConsumer } from './rpc-consumers';

/**
 * Signatures of NATS requests (decisions.md "NATS trust boundary"). The sender computes an
 * HMAC-SHA256 of the subject it publishes on, a SHA-256 of the request's bytes (the caller, the
 * payload and the origin are all in them) and an expiry, under the key of the service that answers
 * the subject; that consumer checks it against its own keys before any handler runs.
 *
 * Keys: the senders (the gateway, the auth-server) hold CALLER_SIGNING_KEY, a 32-byte secret; each
 * consumer S holds only its own K_S = HMAC-SHA256(signing key, "crm-rpc-consumer-v2\n" + S) as
 * CALLER_VERIFY_KEYS. So a process that can reach NATS but holds no key cannot act as anyone,
 * cannot re-send a captured request to another subject and cannot replay it once it has expired
 * (nor, on the same replica, before); and a compromised consumer can sign requests to itself only,
 * never to another service (K_S does not give the signing key nor another consumer's key).
 *
 * Header value: `v2.<key id>.<expiry, ms since the epoch>.<HMAC, base64url>`.
 */
const VERSION = 'v2';
const DOMAIN = 'crm-rpc-signature-v2';
const CONSUMER_KEY_DOMAIN = 'crm-rpc-consumer-v2';
/** Added to the caller's own timeout: time in transit and clock skew between hosts. */
export const SIGNATURE_GRACE_MS = 5_000;
/** The furthest expiry a consumer accepts (a signer's clock far ahead is refused, not trusted for long). */
export const MAX_SIGNATURE_TTL_MS = 5 * 60_000;
/** Verify keys a consumer accepts at once: the current key and the one being rotated in or out (and spares). */
export const MAX_VERIFY_KEYS = 4;
const KEY_BYTES = 32;
/** Where the keys come from: the end of every message about a missing or invalid key. */
export const CALLER_KEYS_HOW =
  '`npm start` makes them for development; `node scripts/caller-keys.mjs` generates a signing key and derives each consumer\'s key; see README "Configuration"';
/** Signatures a consumer remembers to refuse a replay before its expiry. */
const MAX_REMEMBERED = 100_000;

/** Why a request was refused: the label of the refusal metric and the log line. */
export type RefusalReason = 'unsigned' | 'malformed' | 'unknown_key' | 'bad_signature' | 'expired' | 'too_far_ahead' | 'replayed';

/** 32 bytes from base64 or base64url text; a PEM is named, since it is a key of the former Ed25519 signatures. */
function parseKey(text: string): Buffer {
  const value = text.trim();
  if (value === '') throw new Error('no key given');
  if (value.includes('-----BEGIN'))
    throw new Error(
      'a PEM is an Ed25519 key of the former signatures (v1); the keys are now 32-byte secrets in base64, see `node scripts/caller-keys.mjs`',
    );
  const raw = /^[A-Za-z0-9+/_-]+={0,2}$/.test(value) ? Buffer.from(value.replace(/-/g, '+').replace(/_/g, '/'), 'base64') : undefined;
  if (!raw || raw.length !== KEY_BYTES) throw new Error(`expected base64 of ${KEY_BYTES} bytes`);
  return raw;
}

/**
 * CALLER_SIGNING_KEY: a 32-byte secret as base64 or base64url (the same shape as the raw Ed25519
 * private keys of the former signatures, so a key `npm start` saved before still works).
 */
export function parseSigningKey(text: string): Buffer {
  return parseKey(text);
}

/** CALLER_VERIFY_KEYS: comma-separated consumer keys ({@link deriveConsumerKey}), each base64 of 32 bytes. */
export function parseVerifyKeys(text: string): Buffer[] {
  const items = text
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
  if (items.length === 0) throw new Error('no key given');
  if (items.length > MAX_VERIFY_KEYS) throw new Error(`at most ${MAX_VERIFY_KEYS} keys`);
  return items.map((item, i) => {
    try {
      return parseKey(item);
    } catch (error) {
      throw new Error(`key ${i + 1}: ${(error as Error).message}`);
    }
  });
}

/** The first 12 characters of the base64url SHA-256 of a consumer key: names it in headers and logs, reveals nothing of it. */
export function keyIdOf(key: Buffer): string {
  return hash('sha256', key, 'base64url').slice(0, 12);
}

function consumerKey(signingKey: Buffer, service: RpcConsumer): Buffer {
  return createHmac('sha256', signingKey).update(`${CONSUMER_KEY_DOMAIN}\n${service}`).digest();
}

/** K_S of `service` (base64url), as its CALLER_VERIFY_KEYS takes it, from CALLER_SIGNING_KEY. */
export function deriveConsumerKey(signingKey: string, service: RpcConsumer): string {
  return consumerKey(parseSigningKey(signingKey), service).toString('base64url');
}

/** CALLER_VERIFY_KEYS_CRM_CORE, ...: where a deployment keeps each consumer's key (deploy/k8s, scripts/caller-keys.mjs). */
export function verifyKeysVariableOf(service: RpcConsumer): string {
  return `CALLER_VERIFY_KEYS_${service.toUpperCase().replace(/-/g, '_')}`;
}

/** A fresh signing key and each consumer's key derived from it (base64url), for scripts and tests. */
export function generateCallerKeys(): { signingKey: string; verifyKeys: Record<RpcConsumer, string> } {
  const signingKey = randomBytes(KEY_BYTES).toString('base64url');
  const verifyKeys = Object.fromEntries(RPC_CONSUMERS.map((service) => [service, deriveConsumerKey(signingKey, service)]));
  return { signingKey, verifyKeys: verifyKeys as Record<RpcConsumer, string> };
}

function mac(key: Buffer, subject: string, expiresAt: number, data: Uint8Array): string {
  const digest = hash('sha256', data, 'base64url');
  return createHmac('sha256', key).update(`${DOMAIN}\n${subject}\n${expiresAt}\n${digest}`).digest('base64url');
}

/** Signs requests for the subject they are published on; held by the services that authenticate users. */
export class RpcSigner {
  /** Each consumer's key and key id, derived once. */
  private readonly keys: Map<RpcConsumer, { id: string; key: Buffer }>;

  /**
   * @param consumerOfSubject which service answers a published subject (its key signs): by the
   *   subject's prefix after the namespace; tests of their own subjects pass another.
   */
  constructor(
    signingKey: string,
    private readonly now: () => number = Date.now,
    private readonly consumerOfSubject: (subject: string) => RpcConsumer = consumerOfPublished,
  ) {
    if (signingKey.trim() === '')
      throw new Error(`CALLER_SIGNING_KEY is required: the secret that signs this service's NATS requests (${CALLER_KEYS_HOW})`);
    const secret = parseSigningKey(signingKey);
    this.keys = new Map(
      RPC_CONSUMERS.map((service) => {
        const key = consumerKey(secret, service);
        return [service, { id: keyIdOf(key), key }];
      }),
    );
  }

  /** The header value for `data` published on `subject` (namespaced), valid for `ttlMs` + {@link SIGNATURE_GRACE_MS}. */
  sign(subject: string, data: Uint8Array, ttlMs: number): string {
    const { id, key } = this.keys.get(this.consumerOfSubject(subject))!;
    const expiresAt = this.now() + ttlMs + SIGNATURE_GRACE_MS;
    return `${VERSION}.${id}.${expiresAt}.${mac(key, subject, expiresAt, data)}`;
  }
}

/**
 * Checks request signatures with this service's configured keys (two during a rotation), refuses
 * expired ones and remembers the ones it accepted until they expire, so the same request is not
 * taken twice by this process.
 */
export class RpcVerifier {
  private readonly keys: Map<string, Buffer>;
  /** Accepted MACs -> their expiry; insertion order is acceptance order. */
  private readonly seen = new Map<string, number>();

  constructor(
    verifyKeys: string,
    private readonly now: () => number = Date.now,
  ) {
    if (verifyKeys.trim() === '')
      throw new Error(`CALLER_VERIFY_KEYS is required: this service's keys that NATS requests to it are signed with (${CALLER_KEYS_HOW})`);
    this.keys = new Map(parseVerifyKeys(verifyKeys).map((key) => [keyIdOf(key), key]));
  }

  get keyIds(): string[] {
    return [...this.keys.keys()];
  }

  /** Undefined when `header` is a valid, fresh signature of `data` on `subject`; else why not. */
  check(subject: string, data: Uint8Array, header: string | undefined): RefusalReason | undefined {
    if (!header) return 'unsigned';
    const parts = header.split('.');
    if (parts.length !== 4 || parts[0] !== VERSION || !/^\d{1,15}$/.test(parts[2]!) || !/^[A-Za-z0-9_-]{43}$/.test(parts[3]!))
      return 'malformed';
    const [, keyId, expiry, given] = parts as [string, string, string, string];
    const key = this.keys.get(keyId);
    if (!key) return 'unknown_key';
    const expiresAt = Number(expiry);
    // The canonical encodings are compared (both 43 ASCII bytes): another spelling of the same
    // 32 bytes would otherwise pass as a different MAC and escape the replay memory below.
    if (!timingSafeEqual(Buffer.from(mac(key, subject, expiresAt, data)), Buffer.from(given))) return 'bad_signature';
    const now = this.now();
    if (expiresAt < now) return 'expired';
    if (expiresAt > now + MAX_SIGNATURE_TTL_MS) return 'too_far_ahead';
    this.forgetExpired(now);
    if (this.seen.has(given)) return 'replayed';
    this.seen.set(given, expiresAt);
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
