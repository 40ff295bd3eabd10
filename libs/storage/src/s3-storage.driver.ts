import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import {
  CopyObjectCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { createPresignedPost } from '@aws-sdk/s3-presigned-post';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { encodeKeyPath } from './signed-urls';
import { StorageKeyTakenError, type StorageDriver, type UploadForm } from './storage-driver';

export interface S3DriverOptions {
  bucket: string;
  region: string;
  /** An S3-compatible server's URL; unset for AWS. */
  endpoint?: string;
  /** Unset: the AWS default credential chain. */
  credentials?: { accessKeyId: string; secretAccessKey: string };
  forcePathStyle: boolean;
}

/** S3's answer to `If-None-Match: *` on a key taken (409 while another write to it is under way). */
function isKeyTaken(error: unknown): boolean {
  const status = (error as { $metadata?: { httpStatusCode?: number } })?.$metadata?.httpStatusCode;
  return status === 412 || status === 409;
}

function isNotFound(error: unknown): boolean {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e?.name === 'NotFound' || e?.name === 'NoSuchKey' || e?.$metadata?.httpStatusCode === 404;
}

/**
 * An S3 bucket (AWS, or an S3-compatible server with path-style addressing). Writes carry
 * `If-None-Match: *` (S3's conditional write: a key taken is refused); a form names one exact key
 * with a server nonce, so no form reaches a registered file (decisions.md "Upload forms").
 */
export class S3StorageDriver implements StorageDriver {
  readonly provider = 'amazon' as const;
  readonly client: S3Client;

  constructor(private readonly options: S3DriverOptions) {
    // Checksums only where S3 requires them: S3-compatible servers store an aws-chunked body (the
    // default with a checksum trailer) as it came.
    const config: S3ClientConfig = {
      region: options.region,
      forcePathStyle: options.forcePathStyle,
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    };
    if (options.endpoint) config.endpoint = options.endpoint;
    if (options.credentials) config.credentials = options.credentials;
    this.client = new S3Client(config);
  }

  async putFile(key: string, path: string, size: number, contentType: string): Promise<void> {
    await this.write(
      key,
      new PutObjectCommand({
        Bucket: this.options.bucket,
        Key: key,
        Body: createReadStream(path),
        ContentLength: size,
        ContentType: contentType,
        IfNoneMatch: '*',
      }),
    );
  }

  async putBuffer(key: string, data: Buffer, contentType: string): Promise<void> {
    await this.write(
      key,
      new PutObjectCommand({ Bucket: this.options.bucket, Key: key, Body: data, ContentType: contentType, IfNoneMatch: '*' }),
    );
  }

  async copy(from: string, to: string): Promise<void> {
    await this.write(
      to,
      new CopyObjectCommand({
        Bucket: this.options.bucket,
        Key: to,
        CopySource: `${encodeURIComponent(this.options.bucket)}/${encodeKeyPath(from)}`,
        IfNoneMatch: '*',
      }),
    );
  }

  private async write(key: string, command: PutObjectCommand | CopyObjectCommand): Promise<void> {
    try {
      await this.client.send(command as PutObjectCommand);
    } catch (error) {
      if (isKeyTaken(error)) throw new StorageKeyTakenError(key);
      throw error;
    }
  }

  async stat(key: string): Promise<{ size: number } | null> {
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.options.bucket, Key: key }));
      return { size: head.ContentLength ?? 0 };
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  async read(key: string): Promise<Readable | null> {
    try {
      const object = await this.client.send(new GetObjectCommand({ Bucket: this.options.bucket, Key: key }));
      return object.Body as Readable;
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  async readStart(key: string, bytes: number): Promise<Buffer> {
    try {
      const object = await this.client.send(new GetObjectCommand({ Bucket: this.options.bucket, Key: key, Range: `bytes=0-${bytes - 1}` }));
      const data = await object.Body!.transformToByteArray();
      return Buffer.from(data.subarray(0, bytes));
    } catch (error) {
      // An empty object has no byte 0: S3 answers 416 to the range.
      if (isNotFound(error) || (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 416)
        return Buffer.alloc(0);
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.options.bucket, Key: key }));
  }

  directDownloadUrl(key: string, filename: string, expiresInSeconds: number): Promise<string | null> {
    const disposition = `attachment; filename*=UTF-8''${encodeURIComponent(filename)}`;
    return getSignedUrl(
      this.client,
      new GetObjectCommand({ Bucket: this.options.bucket, Key: key, ResponseContentDisposition: disposition }),
      {
        expiresIn: expiresInSeconds,
      },
    );
  }

  async uploadForm(key: string, maxBytes: number, expiresInSeconds: number): Promise<UploadForm> {
    // An exact key (a `{ key }` condition), never `${filename}` or a prefix: one form, one key.
    const { url, fields } = await createPresignedPost(this.client, {
      Bucket: this.options.bucket,
      Key: key,
      Conditions: [['content-length-range', 1, maxBytes]],
      Fields: { acl: 'private', success_action_status: '201' },
      Expires: expiresInSeconds,
    });
    // OnePageCRM's field names are lower case (S3 reads form field names in any case).
    const lower = Object.fromEntries(Object.entries(fields).map(([name, value]) => [name.toLowerCase(), value]));
    return { url, fields: { ...lower, key } };
  }
}
