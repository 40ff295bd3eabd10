import { BoolEnv, DatabaseBackedConfig, IntEnv } from '@crm/config';
import { IsBoolean, IsInt, IsOptional, Matches, Max, Min } from 'class-validator';

export class DispatcherConfig extends DatabaseBackedConfig {
  /** Health and metrics only; 0 picks a free port (replicas on one host). */
  @IntEnv() @IsInt() @Min(0) @Max(65535)
  HTTP_PORT = 3003;

  @IsOptional() @Matches(/^postgres(ql)?:\/\/.+/, { message: 'WEBHOOKS_DATABASE_URL must look like postgres://user@host:5432/db' })
  WEBHOOKS_DATABASE_URL?: string;

  /** Development only: allow receivers on private, loopback and link-local addresses. */
  @BoolEnv() @IsBoolean()
  WEBHOOK_ALLOW_PRIVATE = false;

  get databaseUrl(): string {
    return this.WEBHOOKS_DATABASE_URL ?? this.DATABASE_URL;
  }
}
