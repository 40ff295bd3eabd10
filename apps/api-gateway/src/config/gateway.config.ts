import { BaseConfig, BoolEnv, IntEnv, parseRegionBaseUrls } from '@crm/config';
import { IsBoolean, IsInt, IsString, Matches, Max, Min, MinLength } from 'class-validator';
import { IsCallerSigningKey } from '@crm/messaging';
import { WithStorageSettings } from '@crm/storage';

const DEV_PEPPER = 'development-only-api-key-pepper-change-me';

/** With the storage settings (decisions.md "Attachments"): the gateway streams uploads to storage and serves downloads. */
export class GatewayConfig extends WithStorageSettings(BaseConfig) {
  @IntEnv()
  @IsInt()
  @Min(0)
  @Max(65535)
  PORT = 3000;

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
  METRICS_PORT = 9460;

  /**
   * The 32-byte secret (base64) this service's NATS requests are signed with, under the key it
   * derives for each consumer; required to start, not to migrate. Each consumer holds its own
   * derived key as CALLER_VERIFY_KEYS (decisions.md "NATS trust boundary").
   */
  @IsCallerSigningKey()
  CALLER_SIGNING_KEY = '';

  /** Key of the API-key HMAC; the auth-server must have the same value. */
  @IsString()
  @MinLength(16, { message: 'API_KEY_PEPPER must be at least 16 characters' })
  API_KEY_PEPPER = DEV_PEPPER;

  /** Longest wait for a service's reply before answering 503. */
  @IntEnv()
  @IsInt()
  @Min(100)
  @Max(60000)
  RPC_TIMEOUT_MS = 5000;

  /** Internal URL of the auth-server (JWKS for bearer tokens). */
  @Matches(/^https?:\/\/.+/, { message: 'AUTH_URL must be an http(s) URL' })
  AUTH_URL = 'http://127.0.0.1:3001';

  /** Shortest pause between two JWKS fetches triggered by an unknown kid (keys are published ahead of use). */
  @IntEnv()
  @IsInt()
  @Min(0)
  @Max(600000)
  JWKS_REFETCH_COOLDOWN_MS = 30000;

  /**
   * Opened credential records, grant flags and verified access tokens kept in memory, at most
   * this many of each (least recently used dropped first); 0 turns the cache off, so every
   * request reads Redis (decisions.md "Credential cache in the gateway (issue 17)").
   */
  @IntEnv()
  @IsInt()
  @Min(0)
  @Max(1_000_000)
  CREDENTIAL_CACHE_MAX_ENTRIES = 10_000;

  /** Longest life of a cached entry: a safety net only, since changes drop entries at once. */
  @IntEnv()
  @IsInt()
  @Min(1000)
  @Max(300_000)
  CREDENTIAL_CACHE_TTL_MS = 30_000;

  /**
   * The cache is used only while the invalidation channel was confirmed in order at most this long
   * ago (a PING on the subscriber connection every third of it): a revoked key or grant is refused
   * within this delay, plus delivery time, even if the connection to Redis dies silently. At most
   * 900, to keep the promise of "refused within 1 s".
   */
  @IntEnv()
  @IsInt()
  @Min(100)
  @Max(900)
  CREDENTIAL_CACHE_MAX_LAG_MS = 500;

  /** Public origin of the API, used in the OpenAPI document (and in download links: the storage settings). */
  @Matches(/^https?:\/\/[^/]+$/, { message: 'PUBLIC_URL must be an origin like https://api.example.com' })
  override PUBLIC_URL = 'http://localhost:3000';

  /** Requests per user per minute (decisions.md default 6000); past it: 403 Rate Limit Exceeded. */
  @IntEnv()
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  RATE_LIMIT_PER_MINUTE = 6000;

  /** Requests of one user running at once (decisions.md default 20); past it: 429 Too Many Requests. */
  @IntEnv()
  @IsInt()
  @Min(1)
  @Max(10_000)
  RATE_LIMIT_CONCURRENT = 20;

  /**
   * Browser origins allowed to call the API with a bearer token (CORS), comma-separated, besides
   * the origins of registered public clients' redirect URIs, which are allowed automatically.
   */
  @Matches(/^$|^https?:\/\/[^/,\s]+(,https?:\/\/[^/,\s]+)*$/, {
    message: 'CORS_ALLOWED_ORIGINS must be origins like https://app.example.com separated by commas',
  })
  CORS_ALLOWED_ORIGINS = '';

  get corsAllowedOrigins(): string[] {
    return this.CORS_ALLOWED_ORIGINS ? this.CORS_ALLOWED_ORIGINS.split(',') : [];
  }

  /** Public origin of the auth-server, used in the OpenAPI document. */
  @Matches(/^https?:\/\/[^/]+$/, { message: 'PUBLIC_AUTH_URL must be an origin like https://auth.example.com' })
  PUBLIC_AUTH_URL = 'http://localhost:3001';

  /** Public OAuth issuer (the auth-server's public origin): the `iss` of every access token. */
  @Matches(/^https?:\/\/[^/]+$/, { message: 'AUTH_ISSUER must be an origin like https://auth.example.com' })
  AUTH_ISSUER = 'http://localhost:3001';

  /** Region to API base URL; access tokens must name one of these as their audience. */
  @Matches(/^[a-z0-9-]+=https?:\/\/[^,]+(,[a-z0-9-]+=https?:\/\/[^,]+)*$/, {
    message: 'REGION_BASE_URLS must be region=url pairs separated by commas',
  })
  REGION_BASE_URLS = 'us=http://localhost:3000/api/v3';

  get regionBaseUrls(): Map<string, string> {
    return parseRegionBaseUrls(this.REGION_BASE_URLS);
  }

  check(): string[] {
    const problems = this.storageProblems();
    if (this.isProduction && this.API_KEY_PEPPER === DEV_PEPPER)
      problems.push('API_KEY_PEPPER: must be set to a secret value in production');
    return problems;
  }
}
