import { createHmac } from 'node:crypto';

const keys = new Map<string, Buffer>();

/** The HMAC key of a `whsec_<base64>` signing secret (Standard Webhooks): the decoded bytes. */
export function signingKey(secret: string): Buffer {
  let key = keys.get(secret);
  if (!key) {
    key = Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
    if (keys.size > 10_000) keys.clear();
    keys.set(secret, key);
  }
  return key;
}

/**
 * The `webhook-signature` header of Standard Webhooks: `v1,` + base64 HMAC-SHA256 of
 * `id.timestamp.body`, one per secret, space-separated (the current secret first, then the previous
 * one while a rotation overlaps).
 */
export function signDelivery(id: string, timestampSeconds: number, body: string, secrets: readonly string[]): string {
  return secrets
    .map((secret) => `v1,${createHmac('sha256', signingKey(secret)).update(`${id}.${timestampSeconds}.`).update(body).digest('base64')}`)
    .join(' ');
}
