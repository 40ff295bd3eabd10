import { AsyncLocalStorage } from 'node:async_hooks';
import { randomBytes } from 'node:crypto';

/**
 * oidc-provider compares a client's secret as plain text, but we store only scrypt hashes. The
 * token endpoint's pre-check verifies the presented secret against the hash and puts it here; the
 * adapter hands it to the provider as the client's secret for this request only. Any other
 * request sees an unguessable value, so it cannot authenticate.
 */
const storage = new AsyncLocalStorage<{ clientId: string; secret: string }>();

export function runWithVerifiedSecret<T>(clientId: string, secret: string, fn: () => T): T {
  return storage.run({ clientId, secret }, fn);
}

export function verifiedSecretFor(clientId: string): string {
  const verified = storage.getStore();
  return verified && verified.clientId === clientId ? verified.secret : randomBytes(48).toString('base64url');
}
