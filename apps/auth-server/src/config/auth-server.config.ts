import { BoolEnv, DatabaseBackedConfig, IntEnv, parseRegionBaseUrls } from '@crm/config';
import { IsBoolean, IsInt, IsOptional, IsString, Matches, Max, Min, MinLength } from 'class-validator';
import { trustedProxyProblems } from '../http/trusted-proxies';
import { AreCallerVerifyKeys, IsCallerSigningKey } from '@crm/messaging';

const DEV_PEPPER = 'development-only-api-key-pepper-change-me';

export class AuthServerConfig extends DatabaseBackedConfig {
  @IntEnv()
  @IsInt()
  @Min(0)
  @Max(65535)
  AUTH_PORT = 3001;

  /**
   * REDIS_URL names seed nodes of a Redis Cluster (comma-separated URLs; the first URL's user and
   * password apply to every node) instead of one server (decisions.md "Redis Cluster").
   */
  @BoolEnv()
  @IsBoolean()
  REDIS_CLUSTER = false;

  /** Prometheus /metrics only, apart from the service's own port (never published); 0 picks a free port. */
  @IntEnv()
  @IsInt()
  @Min(0)
  @Max(65535)
  METRICS_PORT = 9461;

  /**
   * The operator API (/operator/*) only, on its own internal port that no Ingress routes to: the
   * public AUTH_PORT answers 404 there (decisions.md "Operations: migrations job, internal ports,
   * overlays"); 0 picks a free port.
   */
  @IntEnv()
  @IsInt()
  @Min(0)
  @Max(65535)
  OPERATOR_PORT = 9470;

  /**
   * The 32-byte secret (base64) this service's NATS requests are signed with, under the key it
   * derives for each consumer; required to start, not to migrate. Each consumer holds its own
   * derived key as CALLER_VERIFY_KEYS (decisions.md "NATS trust boundary").
   */
  @IsCallerSigningKey()
  CALLER_SIGNING_KEY = '';

  /**
   * This service's own keys, derived from CALLER_SIGNING_KEY for it (base64 of 32 bytes,
   * comma-separated: two during a rotation), that NATS requests to it must be signed with;
   * required to start, not to migrate (decisions.md "NATS trust boundary").
   */
  @AreCallerVerifyKeys()
  CALLER_VERIFY_KEYS = '';

  @IsOptional()
  @Matches(/^postgres(ql)?:\/\/.+/, { message: 'AUTH_DATABASE_URL must look like postgres://user@host:5432/db' })
  AUTH_DATABASE_URL?: string;

  /** Bearer token of the operator API; without it the /operator routes do not exist. */
  @IsOptional()
  @IsString()
  @MinLength(32, { message: 'OPERATOR_TOKEN must be at least 32 characters' })
  OPERATOR_TOKEN?: string;

  /** Key of the API-key HMAC; the gateway must have the same value. */
  @IsString()
  @MinLength(16, { message: 'API_KEY_PEPPER must be at least 16 characters' })
  API_KEY_PEPPER = DEV_PEPPER;

  /** Public URL of this server (the OAuth issuer). */
  @Matches(/^https?:\/\/[^/]+$/, { message: 'AUTH_ISSUER must be an origin like https://auth.example.com (no path)' })
  AUTH_ISSUER = 'http://localhost:3001';

  /** Region to API base URL, e.g. `us=https://api.example.com/api/v3,eu=https://eu.api.example.com/api/v3`. */
  @Matches(/^[a-z0-9-]+=https?:\/\/[^,]+(,[a-z0-9-]+=https?:\/\/[^,]+)*$/, {
    message: 'REGION_BASE_URLS must be region=url pairs separated by commas',
  })
  REGION_BASE_URLS = 'us=http://localhost:3000/api/v3';

  @Matches(/^[a-z0-9-]+$/)
  DEFAULT_REGION = 'us';

  /** How long an account may stay half-made before the resumer retries its provisioning. */
  @IntEnv()
  @IsInt()
  @Min(1000)
  PROVISIONING_RETRY_MS = 15000;

  @IntEnv()
  @IsInt()
  @Min(100)
  @Max(60000)
  RPC_TIMEOUT_MS = 5000;

  /** Days a signing key signs before a successor is published (then used SIGNING_KEY_PUBLISH_AHEAD_SECONDS later). */
  @IntEnv()
  @IsInt()
  @Min(1)
  @Max(3650)
  SIGNING_KEY_ROTATION_DAYS = 30;

  /** Seconds a new signing key is in the JWKS before it signs (longer than any verifier's JWKS cache). */
  @IntEnv()
  @IsInt()
  @Min(0)
  @Max(7 * 86400)
  SIGNING_KEY_PUBLISH_AHEAD_SECONDS = 3600;

  /** How often each replica reloads the signing keys (rotation, new keys of other replicas). */
  @IntEnv()
  @IsInt()
  @Min(100)
  @Max(3600000)
  SIGNING_KEY_CHECK_INTERVAL_MS = 60000;

  /**
   * Proxies whose X-Forwarded-For this server believes: addresses or CIDRs (or `loopback`,
   * `linklocal`, `uniquelocal`), comma-separated. None by default: the client is the TCP peer.
   */
  @IsString()
  AUTH_TRUSTED_PROXIES = '';

  /** Password and client-secret hashes (scrypt) computed at once per process; more wait in a short queue. */
  @IntEnv()
  @IsInt()
  @Min(1)
  @Max(64)
  AUTH_HASH_CONCURRENCY = 4;

  /** Hashes that may wait for a slot; beyond them the request is answered 503 with Retry-After. */
  @IntEnv()
  @IsInt()
  @Min(0)
  @Max(1000)
  AUTH_HASH_QUEUE = 16;

  /** Tests only: lets the operator shift this process's clock. Refused in production. */
  @BoolEnv()
  @IsBoolean()
  ENABLE_TEST_CLOCK = false;

  get databaseUrl(): string {
    return this.AUTH_DATABASE_URL ?? this.DATABASE_URL;
  }

  get regionBaseUrls(): Map<string, string> {
    return parseRegionBaseUrls(this.REGION_BASE_URLS);
  }

  /** AUTH_TRUSTED_PROXIES as a list (empty: trust no proxy). */
  get trustedProxies(): string[] {
    return this.AUTH_TRUSTED_PROXIES.split(',')
      .map((entry) => entry.trim())
      .filter(Boolean);
  }

  check(): string[] {
    const problems: string[] = [...trustedProxyProblems(this.trustedProxies).map((p) => `AUTH_TRUSTED_PROXIES: ${p}`)];
    if (!this.regionBaseUrls.has(this.DEFAULT_REGION))
      problems.push(`DEFAULT_REGION: "${this.DEFAULT_REGION}" has no entry in REGION_BASE_URLS`);
    if (this.isProduction && this.ENABLE_TEST_CLOCK) problems.push('ENABLE_TEST_CLOCK: must not be set in production');
    // Not for `main.js migrate` (the migration Job holds no API-key pepper: it hashes nothing).
    if (this.isProduction && this.API_KEY_PEPPER === DEV_PEPPER && process.argv[2] !== 'migrate')
      problems.push('API_KEY_PEPPER: must be set to a secret value in production');
    return problems;
  }
}
