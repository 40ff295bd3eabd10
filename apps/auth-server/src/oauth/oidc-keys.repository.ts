import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import { DataSource } from 'typeorm';

export interface OidcKeys {
  /** Private signing keys, newest first (the first signs). */
  jwks: JWK[];
  cookieKeys: string[];
}

/**
 * Signing and cookie keys shared by every auth-server replica, created once (under a lock) in
 * the auth schema.
 */
@Injectable()
export class OidcKeysRepository {
  constructor(private readonly dataSource: DataSource) {}

  async load(): Promise<OidcKeys> {
    return this.dataSource.transaction(async (m) => {
      await m.query("SELECT pg_advisory_xact_lock(hashtext('auth.secrets'))");
      const rows: Array<{ name: string; value: unknown }> = await m.query("SELECT name, value FROM auth.secrets WHERE name IN ('signing_keys', 'cookie_keys')");
      let jwks = rows.find((r) => r.name === 'signing_keys')?.value as JWK[] | undefined;
      let cookieKeys = rows.find((r) => r.name === 'cookie_keys')?.value as string[] | undefined;
      if (!jwks) {
        const { privateKey } = await generateKeyPair('ES256', { extractable: true });
        const jwk = await exportJWK(privateKey);
        jwks = [{ ...jwk, alg: 'ES256', use: 'sig', kid: randomBytes(12).toString('base64url') }];
        await m.query("INSERT INTO auth.secrets (name, value) VALUES ('signing_keys', $1)", [JSON.stringify(jwks)]);
      }
      if (!cookieKeys) {
        cookieKeys = [randomBytes(32).toString('base64url')];
        await m.query("INSERT INTO auth.secrets (name, value) VALUES ('cookie_keys', $1)", [JSON.stringify(cookieKeys)]);
      }
      return { jwks, cookieKeys };
    });
  }
}
