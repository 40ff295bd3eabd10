import { IsIn, IsInt, IsOptional, IsString, Matches, Max, Min } from 'class-validator';
import { IntEnv } from './load-config';

/** Settings every service shares. */
export class BaseConfig {
  @IsIn(['development', 'test', 'production'])
  NODE_ENV: 'development' | 'test' | 'production' = 'development';

  @IsIn(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'])
  LOG_LEVEL = 'info';

  /** Prefix of NATS subjects, JetStream names and Redis keys: isolates deployments sharing infra. */
  @Matches(/^[a-z][a-z0-9_-]{0,40}$/, { message: 'CRM_NAMESPACE must be lowercase letters, digits, _ or - (starting with a letter)' })
  CRM_NAMESPACE = 'crm';

  @Matches(/^nats:\/\/.+/, { message: 'NATS_URL must look like nats://host:4222 (comma-separated for a cluster)' })
  NATS_URL = 'nats://127.0.0.1:4222';

  @Matches(/^rediss?:\/\/.+/, { message: 'REDIS_URL must look like redis://host:6379' })
  REDIS_URL = 'redis://127.0.0.1:6379';

  /** Time allowed for in-flight work after SIGTERM. */
  @IntEnv()
  @IsInt()
  @Min(0)
  @Max(120000)
  SHUTDOWN_TIMEOUT_MS = 10000;

  @IsOptional()
  @IsString()
  SERVICE_INSTANCE?: string;

  /**
   * OpenTelemetry traces are exported over OTLP/HTTP only when one of these is set (the standard
   * variables: the traces endpoint as is, the base endpoint with /v1/traces appended by the
   * exporter); with neither, no tracer is registered and tracing costs nothing.
   */
  @IsOptional()
  @Matches(/^https?:\/\/.+/, { message: 'OTEL_EXPORTER_OTLP_ENDPOINT must be an http(s) URL, e.g. http://otel-collector:4318' })
  OTEL_EXPORTER_OTLP_ENDPOINT?: string;

  @IsOptional()
  @Matches(/^https?:\/\/.+/, {
    message: 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT must be an http(s) URL, e.g. http://otel-collector:4318/v1/traces',
  })
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?: string;

  /** service.name of this process's spans (default: the app's name). */
  @IsOptional()
  @Matches(/^[A-Za-z0-9._-]{1,64}$/, { message: 'OTEL_SERVICE_NAME must be 1-64 letters, digits, ., _ or -' })
  OTEL_SERVICE_NAME?: string;

  get isProduction(): boolean {
    return this.NODE_ENV === 'production';
  }

  /** What libs/observability startTracing needs: on only when an OTLP endpoint is set. */
  tracingOptions(service: string): { service: string; instance?: string; endpoint?: string } {
    return {
      service: this.OTEL_SERVICE_NAME ?? service,
      instance: this.SERVICE_INSTANCE,
      endpoint: this.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? this.OTEL_EXPORTER_OTLP_ENDPOINT,
    };
  }
}

/** Settings of a service that owns a PostgreSQL schema. */
export class DatabaseBackedConfig extends BaseConfig {
  @Matches(/^postgres(ql)?:\/\/.+/, { message: 'DATABASE_URL must look like postgres://user@host:5432/db' })
  DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/crm';

  @IntEnv()
  @IsInt()
  @Min(1)
  @Max(200)
  DATABASE_POOL_SIZE = 10;
}

/** `us=https://a/api/v3,eu=https://b/api/v3` -> Map(region -> base URL). */
export function parseRegionBaseUrls(value: string): Map<string, string> {
  return new Map(value.split(',').map((pair) => pair.split('=', 2).map((s) => s.trim()) as [string, string]));
}
