import { BoolEnv, IntEnv } from '@crm/config';
import { IsBoolean, IsIn, IsInt, IsOptional, IsString, Matches, Max, Min, MinLength } from 'class-validator';

export const DEV_STORAGE_SECRET = 'development-only-storage-secret-change-me';

/** The storage settings the gateway and crm-core share (decisions.md "Attachments"). */
export interface StorageSettings {
  STORAGE_DRIVER: 'local' | 's3';
  STORAGE_DIR: string;
  STORAGE_SECRET: string;
  PUBLIC_URL: string;
  S3_BUCKET: string;
  S3_REGION: string;
  S3_ENDPOINT?: string;
  S3_ACCESS_KEY_ID?: string;
  S3_SECRET_ACCESS_KEY?: string;
  S3_FORCE_PATH_STYLE: boolean;
  ATTACHMENT_MAX_BYTES: number;
  ATTACHMENT_URL_TTL_SECONDS: number;
  UPLOAD_FORM_TTL_SECONDS: number;
  STORAGE_QUOTA_BYTES: number;
  STORAGE_PURGE_INTERVAL_MS: number;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type ConfigClass = new (...args: any[]) => { isProduction: boolean };

/**
 * Adds the storage settings to a service's config class (one validated class per service, the
 * same variables in both services that touch stored files).
 */
export function WithStorageSettings<TBase extends ConfigClass>(Base: TBase) {
  class WithStorage extends Base implements StorageSettings {
    /** `local`: files on disk under STORAGE_DIR (one host; the default); `s3`: an S3-compatible bucket. */
    @IsIn(['local', 's3'], { message: 'STORAGE_DRIVER must be local or s3' })
    STORAGE_DRIVER: 'local' | 's3' = 'local';

    /** Directory of the local driver (relative to the working directory). */
    @IsString()
    STORAGE_DIR = '.local/attachments';

    /** HMAC key of download URLs and of the local driver's upload forms; the gateway and crm-core share it. */
    @IsString()
    @MinLength(16, { message: 'STORAGE_SECRET must be at least 16 characters' })
    STORAGE_SECRET = DEV_STORAGE_SECRET;

    /** Public origin of the API gateway: download URLs and the local upload form point at it. */
    @Matches(/^https?:\/\/[^/]+$/, { message: 'PUBLIC_URL must be an origin like https://api.example.com' })
    PUBLIC_URL = 'http://localhost:3000';

    @IsString()
    S3_BUCKET = 'crm-attachments';

    @IsString()
    S3_REGION = 'us-east-1';

    /** Endpoint of an S3-compatible server (MinIO, s3rver); unset for AWS. */
    @IsOptional()
    @Matches(/^https?:\/\/.+/, { message: 'S3_ENDPOINT must be an http(s) URL' })
    S3_ENDPOINT?: string;

    /** Unset: the AWS default credential chain (instance role, profile). */
    @IsOptional()
    @IsString()
    S3_ACCESS_KEY_ID?: string;

    @IsOptional()
    @IsString()
    S3_SECRET_ACCESS_KEY?: string;

    /** Path-style addressing (http://host/bucket/key), which S3-compatible servers need. */
    @BoolEnv()
    @IsBoolean()
    S3_FORCE_PATH_STYLE = false;

    /** Largest file accepted (25 MiB); larger is 413 request_too_large. */
    @IntEnv()
    @IsInt()
    @Min(1)
    @Max(5 * 1024 * 1024 * 1024)
    ATTACHMENT_MAX_BYTES = 25 * 1024 * 1024;

    /** Validity of a download URL (`url_expires_at`). */
    @IntEnv()
    @IsInt()
    @Min(60)
    @Max(7 * 24 * 3600)
    ATTACHMENT_URL_TTL_SECONDS = 3600;

    /** Validity of an upload form from GET /attachments/s3_form. */
    @IntEnv()
    @IsInt()
    @Min(60)
    @Max(7 * 24 * 3600)
    UPLOAD_FORM_TTL_SECONDS = 3600;

    /** Stored bytes per account (attachments; photos and logos are small and not counted). */
    @IntEnv()
    @IsInt()
    @Min(0)
    STORAGE_QUOTA_BYTES = 1024 * 1024 * 1024;

    /** How often crm-core removes the bytes of deleted attachments it could not remove at once. */
    @IntEnv()
    @IsInt()
    @Min(50)
    @Max(3_600_000)
    STORAGE_PURGE_INTERVAL_MS = 5000;

    storageProblems(): string[] {
      const problems: string[] = [];
      // Not for `main.js migrate` (the migration Job holds no storage secret: it signs nothing).
      if (this.isProduction && this.STORAGE_SECRET === DEV_STORAGE_SECRET && process.argv[2] !== 'migrate')
        problems.push('STORAGE_SECRET: must be set to a secret value in production');
      if (this.STORAGE_DRIVER === 's3' && !this.S3_BUCKET) problems.push('S3_BUCKET: required with STORAGE_DRIVER=s3');
      if (Boolean(this.S3_ACCESS_KEY_ID) !== Boolean(this.S3_SECRET_ACCESS_KEY))
        problems.push('S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY: set both or neither');
      return problems;
    }
  }
  return WithStorage;
}
