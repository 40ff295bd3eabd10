import { Injectable } from '@nestjs/common';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import type { JWK } from 'jose';
import { DataSource, type EntityManager } from 'typeorm';
import { OAUTH_TTL } from './oauth-policy';

export interface OidcKeys {
  /** Private signing keys: the one that signs first, then the published ones (next, retiring). */
  jwks: JWK[];
  cookieKeys: string[];
  /** The kid that signs now. */
  signingKid: string;
  /** Changes whenever the published set or the signing key changes. */
  fingerprint: string;
}

/** One signing key as stored in auth.secrets (times in seconds since the epoch). */
export interface StoredSigningKey {
  jwk: JWK;
  created_at: number;
  activates_at: number;
}

export interface SigningKeyPolicy {
  /** Seconds a key signs before its successor is published. */
  rotationSeconds: number;
  /** Seconds a successor is published before it signs. */
  publishAheadSeconds: number;
}

export type SigningKeyStatus = 'active' | 'next' | 'retiring';

/** Seconds a replaced key stays published: its last tokens live one access-token TTL, plus clock skew. */
export const RETIRE_AFTER_SECONDS = OAUTH_TTL.accessToken + 600;

/**
 * Keys are kept in creation order (a successor is always appended). The active key is the last one
 * whose activation time has passed, or the first, should every activation lie ahead (a clock
 * stepped back).
 */
export function activeIndex(keys: StoredSigningKey[], now: number): number {
  let index = 0;
  keys.forEach((key, i) => {
    if (key.activates_at <= now) index = i;
  });
  return index;
}

/**
 * The rotation policy as a pure function: publishes a successor when the active key is older than
 * the rotation period, and drops keys replaced more than RETIRE_AFTER_SECONDS ago.
 */
export function planSigningKeys(
  stored: StoredSigningKey[],
  now: number,
  policy: SigningKeyPolicy,
  createKey: (activatesAt: number) => StoredSigningKey,
): { keys: StoredSigningKey[]; changed: boolean } {
  let keys = [...stored];
  let changed = false;
  if (keys.length === 0) {
    keys = [createKey(now)];
    changed = true;
  }
  let active = activeIndex(keys, now);
  if (active === keys.length - 1 && keys[active].created_at + policy.rotationSeconds <= now) {
    keys.push(createKey(now + policy.publishAheadSeconds));
    changed = true;
  }
  active = activeIndex(keys, now);
  const kept = keys.filter((_key, i) => i >= active || keys[i + 1].activates_at + RETIRE_AFTER_SECONDS > now);
  if (kept.length !== keys.length) changed = true;
  return { keys: kept, changed };
}

export function statusOf(keys: StoredSigningKey[], index: number, now: number): SigningKeyStatus {
  const active = activeIndex(keys, now);
  return index === active ? 'active' : index > active ? 'next' : 'retiring';
}

/**
 * Signing and cookie keys shared by every auth-server replica, in the auth schema. Every change
 * happens under one advisory lock, so replicas never create or rotate keys twice.
 */
@Injectable()
export class OidcKeysRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Applies the rotation policy and returns the keys this replica should use now. */
  async load(policy: SigningKeyPolicy, now = Math.floor(Date.now() / 1000)): Promise<OidcKeys> {
    return this.locked(async (m) => {
      const { signing, cookieKeys } = await this.read(m);
      const plan = planSigningKeys(signing, now, policy, newSigningKey);
      if (plan.changed) await this.saveSigning(m, plan.keys);
      let cookies = cookieKeys;
      if (!cookies) {
        cookies = [randomBytes(32).toString('base64url')];
        await m.query("INSERT INTO auth.secrets (name, value) VALUES ('cookie_keys', $1)", [JSON.stringify(cookies)]);
      }
      return toOidcKeys(plan.keys, cookies, now);
    });
  }

  /** Publishes a successor now (operator-requested rotation); it signs after `activateInSeconds`. */
  async stageSuccessor(activateInSeconds: number, now = Math.floor(Date.now() / 1000)): Promise<StoredSigningKey> {
    return this.locked(async (m) => {
      const { signing } = await this.read(m);
      const keys = [...signing];
      const active = activeIndex(keys, now);
      // One successor at a time: a new request replaces a successor that has not signed yet.
      const kept = keys.slice(0, active + 1);
      const next = newSigningKey(now + activateInSeconds);
      kept.push(next);
      await this.saveSigning(m, kept);
      return next;
    });
  }

  async list(
    now = Math.floor(Date.now() / 1000),
  ): Promise<Array<{ kid: string; status: SigningKeyStatus; created_at: number; activates_at: number }>> {
    const { signing } = await this.read(this.dataSource.manager);
    const keys = signing;
    return keys.map((key, i) => ({
      kid: String(key.jwk.kid),
      status: statusOf(keys, i, now),
      created_at: key.created_at,
      activates_at: key.activates_at,
    }));
  }

  private locked<T>(fn: (m: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(async (m) => {
      await m.query("SELECT pg_advisory_xact_lock(hashtext('auth.secrets'))");
      return fn(m);
    });
  }

  private async read(m: EntityManager): Promise<{ signing: StoredSigningKey[]; cookieKeys?: string[] }> {
    const rows: Array<{ name: string; value: unknown }> = await m.query(
      "SELECT name, value FROM auth.secrets WHERE name IN ('signing_keys', 'cookie_keys')",
    );
    const raw = (rows.find((r) => r.name === 'signing_keys')?.value as Array<StoredSigningKey | JWK> | undefined) ?? [];
    // Keys written before rotation existed are bare JWKs: treat them as active since forever.
    const signing = raw.map((entry) =>
      'jwk' in entry && entry.jwk ? (entry as StoredSigningKey) : { jwk: entry as JWK, created_at: 0, activates_at: 0 },
    );
    return { signing, cookieKeys: rows.find((r) => r.name === 'cookie_keys')?.value as string[] | undefined };
  }

  private async saveSigning(m: EntityManager, keys: StoredSigningKey[]): Promise<void> {
    await m.query(
      "INSERT INTO auth.secrets (name, value) VALUES ('signing_keys', $1) ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value",
      [JSON.stringify(keys)],
    );
  }
}

function toOidcKeys(keys: StoredSigningKey[], cookieKeys: string[], now: number): OidcKeys {
  const active = activeIndex(keys, now);
  // oidc-provider signs with the first key of the algorithm; the others are published only.
  const ordered = [keys[active], ...keys.filter((_k, i) => i !== active)];
  const jwks = ordered.map((k) => k.jwk);
  const signingKid = String(keys[active].jwk.kid);
  return { jwks, cookieKeys, signingKid, fingerprint: `${signingKid}|${jwks.map((k) => k.kid).join(',')}` };
}

/** A fresh ES256 (P-256) key pair with a random kid. */
export function newSigningKey(activatesAt: number): StoredSigningKey {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = { ...(privateKey.export({ format: 'jwk' }) as JWK), alg: 'ES256', use: 'sig', kid: randomBytes(12).toString('base64url') };
  return { jwk, created_at: Math.floor(Date.now() / 1000), activates_at: activatesAt };
}
