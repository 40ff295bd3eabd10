import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

export type ClientAuthMethod = 'none' | 'client_secret_basic' | 'client_secret_post';

export interface OAuthClientRow {
  client_id: string;
  client_name: string;
  redirect_uris: string[];
  scope: string;
  grant_types: string[];
  token_endpoint_auth_method: ClientAuthMethod;
  secret_hash: string | null;
}

/** OAuth clients approved by the operator; secrets are stored only as scrypt hashes. */
@Injectable()
export class OAuthClientsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async find(clientId: string): Promise<OAuthClientRow | null> {
    const rows: OAuthClientRow[] = await this.dataSource.query('SELECT * FROM auth.oauth_clients WHERE client_id = $1', [clientId]);
    return rows[0] ?? null;
  }

  /** Every redirect URI of the public (browser or native) clients. */
  async publicRedirectUris(): Promise<string[]> {
    const rows: Array<{ uri: string }> = await this.dataSource.query(
      `SELECT DISTINCT unnest(redirect_uris) AS uri FROM auth.oauth_clients WHERE token_endpoint_auth_method = 'none'`,
    );
    return rows.map((row) => row.uri);
  }

  async insert(row: OAuthClientRow): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO auth.oauth_clients (client_id, client_name, redirect_uris, scope, grant_types, token_endpoint_auth_method, secret_hash)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [row.client_id, row.client_name, row.redirect_uris, row.scope, row.grant_types, row.token_endpoint_auth_method, row.secret_hash],
    );
  }
}
