import type { DataSource } from 'typeorm';
import { groupBySlot, type RedisClient } from '@crm/service-kit';
import type { OAuthClientsRepository } from './oauth-clients.repository';
import { verifiedSecretFor } from './client-secret.context';

/** Deletes keys that may lie in several Redis Cluster slots: one DEL per slot (one DEL on a single server). */
async function delEach(redis: RedisClient, keys: string[]): Promise<void> {
  await Promise.all(groupBySlot(redis, keys, (k) => k).map((group) => redis.del(...group)));
}

type Payload = Record<string, unknown> & { grantId?: string; uid?: string; accountId?: string; consumed?: number };

/** Models that must survive restarts and be shared by replicas for their whole life. */
const DURABLE = new Set(['Grant', 'RefreshToken']);

export interface OidcAdapterDeps {
  dataSource: DataSource;
  redis: RedisClient;
  namespace: string;
  clients: OAuthClientsRepository;
  /** Thrown when a single-use artifact is consumed twice at once (the library's InvalidGrant). */
  invalidGrant: (description: string) => Error;
}

/**
 * oidc-provider storage: grants and refresh tokens in PostgreSQL (durable), codes, sessions and
 * interactions in Redis (short-lived, TTL-expired), clients from the operator's table. `consume`
 * is atomic in both stores, so two requests with one code or refresh token cannot both pass.
 */
export function createOidcAdapter(deps: OidcAdapterDeps) {
  const { dataSource: db, redis, namespace } = deps;
  const key = (model: string, id: string) => `${namespace}:oidc:${model}:${id}`;
  const grantSet = (grantId: string) => `${namespace}:oidc:grant:${grantId}`;
  const uidKey = (uid: string) => `${namespace}:oidc:uid:${uid}`;

  return class OidcAdapter {
    constructor(readonly model: string) {}

    async upsert(id: string, payload: Payload, expiresIn?: number): Promise<void> {
      if (DURABLE.has(this.model)) {
        await db.query(
          `INSERT INTO auth.oidc_artifacts (model, id, payload, grant_id, account_id, expires_at)
           VALUES ($1, $2, $3, $4, $5, $6)
           ON CONFLICT (model, id) DO UPDATE SET payload = EXCLUDED.payload, expires_at = EXCLUDED.expires_at`,
          [
            this.model,
            id,
            payload,
            payload.grantId ?? (this.model === 'Grant' ? id : null),
            payload.accountId ?? null,
            expiresIn ? new Date(Date.now() + expiresIn * 1000) : null,
          ],
        );
        return;
      }
      const ttl = Math.max(1, Math.ceil(expiresIn ?? 3600));
      // The record, its grant's set and its uid are keys of three owners: three slots on a Redis
      // Cluster, so no MULTI across them. The grant's set names the record first, so a record
      // never exists that revoking its grant would miss.
      if (payload.grantId) {
        const set = grantSet(payload.grantId);
        await redis.multi().sadd(set, key(this.model, id)).expire(set, ttl, 'GT').exec();
      }
      await Promise.all([
        redis.set(key(this.model, id), JSON.stringify(payload), 'EX', ttl),
        payload.uid ? redis.set(uidKey(payload.uid), id, 'EX', ttl) : undefined,
      ]);
    }

    async find(id: string): Promise<Payload | undefined> {
      if (this.model === 'Client') return this.findClient(id);
      if (DURABLE.has(this.model)) {
        const rows: Array<{ payload: Payload; consumed: number | null }> = await db.query(
          `SELECT payload, extract(epoch FROM consumed_at)::bigint AS consumed FROM auth.oidc_artifacts
           WHERE model = $1 AND id = $2 AND (expires_at IS NULL OR expires_at > $3)`,
          [this.model, id, new Date()],
        );
        if (!rows[0]) return undefined;
        return rows[0].consumed ? { ...rows[0].payload, consumed: Number(rows[0].consumed) } : rows[0].payload;
      }
      // Two GETs, not an MGET: the record and its mark are not in one Redis Cluster slot. The mark
      // only ever appears, and `consume` (SET NX) is what refuses a second use.
      const [raw, consumed] = await Promise.all([redis.get(key(this.model, id)), redis.get(`${key(this.model, id)}:consumed`)]);
      if (!raw) return undefined;
      const payload = JSON.parse(raw) as Payload;
      return consumed ? { ...payload, consumed: Number(consumed) } : payload;
    }

    async findByUid(uid: string): Promise<Payload | undefined> {
      const id = await redis.get(uidKey(uid));
      return id ? this.find(id) : undefined;
    }

    async findByUserCode(): Promise<undefined> {
      return undefined;
    }

    async consume(id: string): Promise<void> {
      const now = Math.floor(Date.now() / 1000);
      if (DURABLE.has(this.model)) {
        const result: [unknown, number] = await db.query(
          'UPDATE auth.oidc_artifacts SET consumed_at = $3 WHERE model = $1 AND id = $2 AND consumed_at IS NULL',
          [this.model, id, new Date()],
        );
        if (result[1] === 0) throw deps.invalidGrant('grant request is invalid');
        return;
      }
      const ttl = await redis.ttl(key(this.model, id));
      const set = await redis.set(`${key(this.model, id)}:consumed`, String(now), 'EX', Math.max(ttl, 1), 'NX');
      if (set !== 'OK') throw deps.invalidGrant('grant request is invalid');
    }

    async destroy(id: string): Promise<void> {
      if (DURABLE.has(this.model)) {
        await db.query('DELETE FROM auth.oidc_artifacts WHERE model = $1 AND id = $2', [this.model, id]);
        return;
      }
      await delEach(redis, [key(this.model, id), `${key(this.model, id)}:consumed`]);
    }

    /** Slides a confidential client's refresh token (the library never re-saves one it did not rotate). */
    static async extendRefreshToken(id: string, exp: number): Promise<void> {
      await db.query(
        `UPDATE auth.oidc_artifacts SET expires_at = $3, payload = jsonb_set(payload, '{exp}', to_jsonb($4::bigint)) WHERE model = $1 AND id = $2`,
        ['RefreshToken', id, new Date(exp * 1000), exp],
      );
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      if (DURABLE.has(this.model)) {
        await db.query('DELETE FROM auth.oidc_artifacts WHERE model = $1 AND grant_id = $2', [this.model, grantId]);
        return;
      }
      const members = await redis.smembers(grantSet(grantId));
      if (members.length > 0) await delEach(redis, [...members, ...members.map((m) => `${m}:consumed`)]);
      await redis.del(grantSet(grantId));
    }

    private async findClient(clientId: string): Promise<Payload | undefined> {
      const row = await deps.clients.find(clientId);
      if (!row) return undefined;
      return {
        client_id: row.client_id,
        client_name: row.client_name,
        redirect_uris: row.redirect_uris,
        scope: row.scope,
        grant_types: row.grant_types,
        response_types: ['code'],
        token_endpoint_auth_method: row.token_endpoint_auth_method,
        ...(row.token_endpoint_auth_method === 'none' ? {} : { client_secret: verifiedSecretFor(row.client_id) }),
      };
    }
  };
}
