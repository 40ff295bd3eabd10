import { createHmac, timingSafeEqual } from 'node:crypto';

/** The public path of stored files on the gateway: downloads (GET) and the local upload form (POST). */
export const FILES_PATH = '/files';

/** A storage key as a URL path: each segment percent-encoded, `/` kept. */
export function encodeKeyPath(key: string): string {
  return key.split('/').map(encodeURIComponent).join('/');
}

function hmac(secret: string, text: string): string {
  return createHmac('sha256', secret).update(text).digest('base64url');
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export interface SignedFileLink {
  url: string;
  /** Unix seconds; null for a link that does not expire (photos and logos). */
  expiresAt: number | null;
}

/**
 * Download links of stored files (decisions.md "Attachments"): `PUBLIC_URL/files/<key>?expires=
 * &signature=`, an HMAC of the key and the expiry under STORAGE_SECRET. crm-core signs them when
 * it renders an attachment; the gateway checks them and serves the bytes (or redirects to the
 * bucket). Synchronous on purpose: views render attachments without I/O.
 */
export class FileUrlSigner {
  constructor(
    private readonly secret: string,
    private readonly publicUrl: string,
    private readonly ttlSeconds: number,
  ) {}

  /**
   * A link valid at least `ttlSeconds`. The expiry is rounded up to a quarter of the TTL, so the
   * same attachment renders the same URL for a while (stable bodies, cacheable links).
   */
  link(key: string, nowSeconds = Math.floor(Date.now() / 1000)): SignedFileLink {
    const step = Math.max(60, Math.floor(this.ttlSeconds / 4));
    const expiresAt = (Math.floor(nowSeconds / step) + 1) * step + this.ttlSeconds;
    return { url: this.urlFor(key, expiresAt), expiresAt };
  }

  /** A link that does not expire (photos and logos: OnePageCRM serves them from a public CDN). */
  permanentLink(key: string): string {
    return this.urlFor(key, 0);
  }

  /** Whether `signature` signs `key` until `expires` (0: forever), at `nowSeconds`. */
  verify(key: string, expires: string, signature: string, nowSeconds = Math.floor(Date.now() / 1000)): 'ok' | 'expired' | 'invalid' {
    if (!/^\d{1,12}$/.test(expires) || !sameText(hmac(this.secret, `GET\n${key}\n${expires}`), signature)) return 'invalid';
    const at = Number(expires);
    return at !== 0 && at < nowSeconds ? 'expired' : 'ok';
  }

  private urlFor(key: string, expires: number): string {
    const signature = hmac(this.secret, `GET\n${key}\n${expires}`);
    return `${this.publicUrl}${FILES_PATH}/${encodeKeyPath(key)}?expires=${expires}&signature=${signature}`;
  }
}

/** The conditions of an upload form, as S3's POST policy states them. */
export interface UploadPolicy {
  /** ISO time after which the form is refused. */
  expiration: string;
  /** The one key the form stores under (`<contact_id>/<nonce>/<file name>`, chosen by crm-core). */
  key: string;
  maxBytes: number;
}

/**
 * The local driver's upload form: the policy (base64 JSON, S3's own shape) signed with HMAC-SHA256
 * under STORAGE_SECRET, checked by the gateway's POST /files before a byte is stored.
 */
export class UploadPolicySigner {
  constructor(private readonly secret: string) {}

  encode(policy: UploadPolicy): { policy: string; signature: string } {
    const document = {
      expiration: policy.expiration,
      conditions: [{ key: policy.key }, ['content-length-range', 1, policy.maxBytes], { success_action_status: '201' }],
    };
    const encoded = Buffer.from(JSON.stringify(document)).toString('base64');
    return { policy: encoded, signature: hmac(this.secret, `POLICY\n${encoded}`) };
  }

  /** The policy the signature vouches for, or a reason to refuse the upload. */
  decode(encoded: string, signature: string, now = new Date()): { ok: true; policy: UploadPolicy } | { ok: false; reason: string } {
    if (!encoded || !signature || !sameText(hmac(this.secret, `POLICY\n${encoded}`), signature))
      return { ok: false, reason: 'the form signature is invalid' };
    let document: { expiration?: unknown; conditions?: unknown };
    try {
      document = JSON.parse(Buffer.from(encoded, 'base64').toString('utf8')) as typeof document;
    } catch {
      return { ok: false, reason: 'the form policy is invalid' };
    }
    const conditions = Array.isArray(document.conditions) ? (document.conditions as unknown[]) : [];
    const key = conditions.find(
      (c): c is { key: string } => typeof c === 'object' && c !== null && typeof (c as { key?: unknown }).key === 'string',
    );
    const range = conditions.find((c): c is [string, number, number] => Array.isArray(c) && c[0] === 'content-length-range');
    if (typeof document.expiration !== 'string' || !key || !range) return { ok: false, reason: 'the form policy is invalid' };
    if (Date.parse(document.expiration) < now.getTime()) return { ok: false, reason: 'the upload form has expired' };
    return { ok: true, policy: { expiration: document.expiration, key: key.key, maxBytes: range[2] } };
  }
}

/** What a gateway-stored upload is for: an attachment's file, or the image of a photo or logo. */
export type StoredUploadPurpose = 'file' | 'image';

/**
 * Keys of files the gateway stored from a request's body (a multipart part, a photo's base64):
 * `<owner>/<nonce>.<mac>/<name>`, the MAC binding the account, the owner (record, contact or
 * company) and the purpose under STORAGE_SECRET. crm-core takes such a key only with the account
 * and owner it was made for, so a request cannot name another file for it (decisions.md "Upload forms").
 */
export class StoredUploadSigner {
  constructor(private readonly secret: string) {}

  key(purpose: StoredUploadPurpose, accountId: string, ownerId: string, filename: string, nonce: string): string {
    return `${ownerId}/${nonce}.${this.mac(purpose, accountId, ownerId, nonce, filename)}/${filename}`;
  }

  /** Whether `key` was made by {@link key} for this purpose, account and owner. */
  verify(purpose: StoredUploadPurpose, accountId: string, ownerId: string, key: string): boolean {
    const parts = key.split('/');
    if (parts.length !== 3 || parts[0] !== ownerId) return false;
    const dot = parts[1].indexOf('.');
    if (dot < 1) return false;
    const nonce = parts[1].slice(0, dot);
    return sameText(this.mac(purpose, accountId, ownerId, nonce, parts[2]), parts[1].slice(dot + 1));
  }

  private mac(purpose: StoredUploadPurpose, accountId: string, ownerId: string, nonce: string, filename: string): string {
    return hmac(this.secret, `UPLOAD\n${purpose}\n${accountId}\n${ownerId}\n${nonce}\n${filename}`).slice(0, 22);
  }
}
