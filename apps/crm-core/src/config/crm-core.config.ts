import { DatabaseBackedConfig, IntEnv } from '@crm/config';
import { IsInt, IsOptional, Matches, Max, Min } from 'class-validator';
import { AreCallerVerifyKeys } from '@crm/messaging';
import { WithStorageSettings } from '@crm/storage';

/** With the storage settings (decisions.md "Attachments"): crm-core checks uploaded files, makes thumbnails and removes deleted bytes. */
export class CrmCoreConfig extends WithStorageSettings(DatabaseBackedConfig) {
  /** Health and metrics only; 0 picks a free port (replicas on one host). */
  @IntEnv()
  @IsInt()
  @Min(0)
  @Max(65535)
  HTTP_PORT = 3002;

  /** Prometheus /metrics only, apart from the service's own port (never published); 0 picks a free port. */
  @IntEnv()
  @IsInt()
  @Min(0)
  @Max(65535)
  METRICS_PORT = 9462;

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

  /** Overrides DATABASE_URL for the crm schema (its own database if wanted). */
  @IsOptional()
  @Matches(/^postgres(ql)?:\/\/.+/, { message: 'CRM_DATABASE_URL must look like postgres://user@host:5432/db' })
  CRM_DATABASE_URL?: string;

  /** Domain of the per-user BCC address that files emails into the CRM. */
  @Matches(/^[a-z0-9.-]+$/i)
  BCC_EMAIL_DOMAIN = 'bcc.crm.localhost';

  /**
   * Hours a relayed event stays in crm.outbox before it is deleted (decisions.md "Outbox
   * retention"); JetStream holds the events from then on. Rows not yet relayed are never deleted.
   */
  @IntEnv()
  @IsInt()
  @Min(1)
  @Max(24 * 90)
  OUTBOX_RETENTION_HOURS = 24;

  check(): string[] {
    return this.storageProblems();
  }

  get databaseUrl(): string {
    return this.CRM_DATABASE_URL ?? this.DATABASE_URL;
  }
}
