import { BoolEnv, DatabaseBackedConfig, IntEnv } from '@crm/config';
import { Transform } from 'class-transformer';
import { IsBoolean, IsInt, IsNumber, IsOptional, Matches, Max, Min } from 'class-validator';
import { AreCallerVerifyKeys } from '@crm/messaging';

export class DispatcherConfig extends DatabaseBackedConfig {
  /** Health and metrics only; 0 picks a free port (replicas on one host). */
  @IntEnv()
  @IsInt()
  @Min(0)
  @Max(65535)
  HTTP_PORT = 3003;

  /** Prometheus /metrics only, apart from the service's own port (never published); 0 picks a free port. */
  @IntEnv()
  @IsInt()
  @Min(0)
  @Max(65535)
  METRICS_PORT = 9463;

  /**
   * Replicas of the JetStream events stream (num_replicas): 1 on a single NATS server, 3 on the
   * production three-node cluster (deploy/k8s/overlays/production). Applied when the stream is
   * created, and by crm-core (its owner) to an existing stream at every start.
   */
  @IntEnv()
  @IsInt()
  @Min(1)
  @Max(5)
  EVENTS_STREAM_REPLICAS = 1;

  /**
   * This service's own keys, derived from CALLER_SIGNING_KEY for it (base64 of 32 bytes,
   * comma-separated: two during a rotation), that NATS requests to it must be signed with;
   * required to start, not to migrate (decisions.md "NATS trust boundary").
   */
  @AreCallerVerifyKeys()
  CALLER_VERIFY_KEYS = '';

  @IsOptional()
  @Matches(/^postgres(ql)?:\/\/.+/, { message: 'WEBHOOKS_DATABASE_URL must look like postgres://user@host:5432/db' })
  WEBHOOKS_DATABASE_URL?: string;

  /** Development only: allow receivers on private, loopback and link-local addresses. */
  @BoolEnv()
  @IsBoolean()
  WEBHOOK_ALLOW_PRIVATE = false;

  /** One attempt may take this long (connect, send, answer) before it counts as a timeout. */
  @IntEnv()
  @IsInt()
  @Min(100)
  @Max(60000)
  WEBHOOK_TIMEOUT_MS = 10000;

  /** Attempts in flight to one webhook per dispatcher replica: a hanging receiver holds at most these. */
  @IntEnv()
  @IsInt()
  @Min(1)
  @Max(1000)
  WEBHOOK_RECEIVER_CONCURRENCY = 32;

  /**
   * Multiplies the retry schedule (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h). 1 in production;
   * tests use e.g. 0.001 so a retry "after 5 minutes" comes after 300 ms.
   */
  @Transform(({ value }) => (typeof value === 'string' && /^\d+(\.\d+)?$/.test(value.trim()) ? Number(value) : value))
  @IsNumber({}, { message: 'WEBHOOK_RETRY_SCALE must be a number' })
  @Min(0.0001)
  @Max(100)
  WEBHOOK_RETRY_SCALE = 1;

  /**
   * Webhooks one account may register (active or not): every event fans out to each of them with
   * up to 8 tries (decisions.md "Event pipeline and fan-out bounds").
   */
  @IntEnv()
  @IsInt()
  @Min(1)
  @Max(1000)
  WEBHOOK_MAX_PER_ACCOUNT = 10;

  /** Finished deliveries (and their attempts) are kept this long for GET /webhooks/{id}/deliveries. */
  @IntEnv()
  @IsInt()
  @Min(1)
  @Max(3650)
  WEBHOOK_DELIVERY_RETENTION_DAYS = 30;

  get databaseUrl(): string {
    return this.WEBHOOKS_DATABASE_URL ?? this.DATABASE_URL;
  }
}
