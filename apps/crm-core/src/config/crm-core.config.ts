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

  /**
   * crm-core's PostgreSQL streaming replica (a physical copy of the primary: the same role and
   * database), for reads (docs/decisions.md "Reads from a replica"). Unset: every read on the primary.
   */
  @IsOptional()
  @Matches(/^postgres(ql)?:\/\/.+/, { message: 'DATABASE_REPLICA_URL must look like postgres://user@host:5432/db' })
  DATABASE_REPLICA_URL?: string;

  /**
   * How far (ms) the replica may lag behind the primary and still serve reads: measured as the age
   * of the newest primary WAL sample the replica has replayed. Past it, every read goes to the primary.
   * At most 30 s: the gateway keeps write positions for a minute, longer than any allowed lag.
   */
  @IntEnv()
  @IsInt()
  @Min(0)
  @Max(30_000)
  REPLICA_MAX_LAG_MS = 1000;

  /** How often (ms) crm-core samples the primary's WAL position and the replica's replay position. */
  @IntEnv()
  @IsInt()
  @Min(10)
  @Max(10_000)
  REPLICA_POLL_MS = 50;

  /**
   * How long (ms) a connection to the replica, or one of its position samples, may take before the
   * replica counts as unreachable (reads go to the primary meanwhile).
   */
  @IntEnv()
  @IsInt()
  @Min(50)
  @Max(30_000)
  REPLICA_TIMEOUT_MS = 1000;

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
    const problems = this.storageProblems();
    if (this.DATABASE_REPLICA_URL !== undefined && this.REPLICA_POLL_MS * 2 > this.REPLICA_MAX_LAG_MS)
      problems.push(
        `REPLICA_POLL_MS (${this.REPLICA_POLL_MS}) must be at most half of REPLICA_MAX_LAG_MS (${this.REPLICA_MAX_LAG_MS}): the measured lag is never below the sampling interval, so the replica would rarely serve reads`,
      );
    return problems;
  }

  get databaseUrl(): string {
    return this.CRM_DATABASE_URL ?? this.DATABASE_URL;
  }
}
