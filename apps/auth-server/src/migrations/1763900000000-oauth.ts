import type { MigrationInterface, QueryRunner } from 'typeorm';

export class OAuth1763900000000 implements MigrationInterface {
  name = 'OAuth1763900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE auth.oauth_clients (
        client_id varchar(64) PRIMARY KEY,
        client_name varchar(200) NOT NULL,
        redirect_uris text[] NOT NULL,
        scope varchar(200) NOT NULL,
        grant_types text[] NOT NULL,
        token_endpoint_auth_method varchar(32) NOT NULL CHECK (token_endpoint_auth_method IN ('none', 'client_secret_basic', 'client_secret_post')),
        secret_hash varchar(200),
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    // Durable oidc-provider artifacts (grants, refresh tokens); short-lived ones live in Redis.
    await q.query(`
      CREATE TABLE auth.oidc_artifacts (
        model varchar(40) NOT NULL,
        id varchar(200) NOT NULL,
        payload jsonb NOT NULL,
        grant_id varchar(200),
        account_id varchar(24),
        expires_at timestamptz,
        consumed_at timestamptz,
        PRIMARY KEY (model, id)
      )`);
    await q.query(`CREATE INDEX oidc_artifacts_grant_idx ON auth.oidc_artifacts (grant_id) WHERE grant_id IS NOT NULL`);
    await q.query(`CREATE INDEX oidc_artifacts_account_idx ON auth.oidc_artifacts (account_id) WHERE account_id IS NOT NULL`);
    await q.query(`CREATE INDEX oidc_artifacts_expiry_idx ON auth.oidc_artifacts (expires_at)`);
    // Revoked grant ids, mirrored to Redis for the gateway; kept until their tokens would expire.
    await q.query(`
      CREATE TABLE auth.revoked_grants (
        grant_id varchar(200) PRIMARY KEY,
        revoked_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL
      )`);
    await q.query(`
      CREATE TABLE auth.secrets (
        name varchar(64) PRIMARY KEY,
        value jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE auth.secrets`);
    await q.query(`DROP TABLE auth.revoked_grants`);
    await q.query(`DROP TABLE auth.oidc_artifacts`);
    await q.query(`DROP TABLE auth.oauth_clients`);
  }
}
