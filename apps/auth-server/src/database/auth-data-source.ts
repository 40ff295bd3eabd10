import { createDataSource } from '@crm/database';
import type { DataSource } from 'typeorm';
import type { AuthServerConfig } from '../config/auth-server.config';
import { AccountEntity } from '../identity/entities/account.entity';
import { UserEntity } from '../identity/entities/user.entity';
import { InitAuth1763800000000 } from '../migrations/1763800000000-init-auth';
import { OAuth1763900000000 } from '../migrations/1763900000000-oauth';
import { CredentialsVersion1764100000000 } from '../migrations/1764100000000-credentials-version';

export const AUTH_SCHEMA = 'auth';

export function authDataSource(config: AuthServerConfig): DataSource {
  return createDataSource({
    url: config.databaseUrl,
    schema: AUTH_SCHEMA,
    entities: [AccountEntity, UserEntity],
    migrations: [InitAuth1763800000000, OAuth1763900000000, CredentialsVersion1764100000000],
    poolSize: config.DATABASE_POOL_SIZE,
    applicationName: 'auth-server',
  });
}
