import { Controller, Get, Inject, Post, Req, Res } from '@nestjs/common';
import { ApiError, ErrorName } from '@crm/contracts';
import { REDIS, type RedisClient } from '@crm/service-kit';
import {
  contentTypeOf,
  FILES_PATH,
  FileUrlSigner,
  isValidStorageKey,
  STORAGE_DRIVER,
  StorageKeyTakenError,
  storageKeyNonce,
  UploadPolicySigner,
  type StorageDriver,
} from '@crm/storage';
import type { Request, Response } from 'express';
import { pipeline } from 'node:stream/promises';
import { GatewayConfig } from '../config/gateway.config';
import { isMultipart, receiveMultipart } from './multipart-upload';

/** Lifetime of the bucket's own presigned link a download is redirected to. */
const REDIRECT_TTL_SECONDS = 60;
/**
 * Redis key that marks an upload form's nonce used, until the form expires (decisions.md "Upload
 * forms"): under the gateway's own prefix, which its Redis ACL user may write (deploy/redis/users.acl).
 */
const usedFormKey = (namespace: string, nonce: string) => `${namespace}:gw:upload-form-used:${nonce}`;

const usedForm = () =>
  new ApiError(ErrorName.NoPermission, 'Upload refused: this upload form was used already; get a new one from GET /attachments/s3_form', {
    policy: 'was used already',
  });

function keyOf(req: Request): string {
  const raw = req.path.slice(FILES_PATH.length + 1);
  try {
    return raw.split('/').map(decodeURIComponent).join('/');
  } catch {
    return '';
  }
}

function contentDisposition(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}

/**
 * Stored files over HTTP, outside the API (decisions.md "Attachments"). No credentials: a signed
 * link is the permission. GET serves a download link crm-core signed (the local driver's bytes
 * streamed as an attachment, never rendered; the S3 driver's a redirect to a presigned GET). POST
 * is the local driver's answer to S3's form upload: the policy of GET /attachments/s3_form (one
 * exact key, a size range, an expiry) checked before a byte is stored, and the form's nonce marked
 * used in Redis (SET NX, shared by every gateway replica), so a form stores one object, once.
 */
@Controller()
export class FilesController {
  constructor(
    @Inject(STORAGE_DRIVER) private readonly storage: StorageDriver,
    private readonly links: FileUrlSigner,
    private readonly policies: UploadPolicySigner,
    private readonly config: GatewayConfig,
    @Inject(REDIS) private readonly redis: RedisClient,
  ) {}

  @Get(`${FILES_PATH.slice(1)}/*key`)
  async download(@Req() req: Request, @Res() res: Response): Promise<void> {
    const key = keyOf(req);
    const expires = typeof req.query.expires === 'string' ? req.query.expires : '';
    const signature = typeof req.query.signature === 'string' ? req.query.signature : '';
    const verdict = isValidStorageKey(key) ? this.links.verify(key, expires, signature) : 'invalid';
    if (verdict === 'expired')
      throw new ApiError(ErrorName.NoPermission, 'This download link has expired; fetch the attachment again for a new one');
    if (verdict === 'invalid') throw new ApiError(ErrorName.NoPermission, 'This download link is not valid');
    const filename = key.slice(key.lastIndexOf('/') + 1);
    const direct = await this.storage.directDownloadUrl(key, filename, REDIRECT_TTL_SECONDS);
    if (direct) {
      res.redirect(302, direct);
      return;
    }
    const size = await this.storage.stat(key);
    const stream = size ? await this.storage.read(key) : null;
    if (!size || !stream) throw ApiError.notFound('File not found');
    res.status(200);
    res.setHeader('Content-Type', contentTypeOf(filename));
    res.setHeader('Content-Length', String(size.size));
    res.setHeader('Content-Disposition', contentDisposition(filename));
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Content-Security-Policy', "default-src 'none'; sandbox");
    res.setHeader('Cache-Control', expires === '0' ? 'public, max-age=86400' : 'private, max-age=300');
    if (req.method === 'HEAD') {
      stream.destroy();
      res.end();
      return;
    }
    await pipeline(stream, res).catch(() => res.destroy());
  }

  @Post(FILES_PATH.slice(1))
  async upload(@Req() req: Request, @Res() res: Response): Promise<void> {
    if (this.storage.provider !== 'local') throw ApiError.notFound('Upload to the bucket with the form of GET /attachments/s3_form');
    if (!isMultipart(req))
      throw new ApiError(ErrorName.UnsupportedMediaType, 'Send the form as multipart/form-data', {
        'Content-Type': 'must be multipart/form-data',
      });
    res.setHeader('Connection', 'close');
    let maxBytes = 0;
    const received = await receiveMultipart(
      req,
      this.config.ATTACHMENT_MAX_BYTES,
      async (fields) => {
        const checked = this.policies.decode(fields.policy ?? '', fields['x-amz-signature'] ?? '');
        if (!checked.ok) throw new ApiError(ErrorName.NoPermission, `Upload refused: ${checked.reason}`);
        const key = fields.key ?? '';
        const nonce = storageKeyNonce(checked.policy.key);
        if (key !== checked.policy.key || !nonce || !isValidStorageKey(key))
          throw new ApiError(ErrorName.NoPermission, "Upload refused: send the form's key field unchanged", {
            key: 'is not the key of this form',
          });
        const ttl = Date.parse(checked.policy.expiration) - Date.now() + 1000;
        if ((await this.redis.set(usedFormKey(this.config.CRM_NAMESPACE, nonce), '1', 'PX', Math.max(ttl, 1000), 'NX')) !== 'OK')
          throw usedForm();
        maxBytes = checked.policy.maxBytes;
        return key;
      },
      () => maxBytes,
    );
    const { file } = received;
    if (!file) throw ApiError.invalid({ file: 'is required (the last part of the form)' });
    try {
      const key = received.context as string;
      await this.storage.putFile(key, file.path, file.size, contentTypeOf(key)).catch((error: unknown) => {
        throw error instanceof StorageKeyTakenError ? usedForm() : error;
      });
      res.removeHeader('Connection');
      res
        .status(201)
        .type('application/xml')
        .send(`<?xml version="1.0" encoding="UTF-8"?>\n<PostResponse><Key>${escapeXml(key)}</Key></PostResponse>`);
    } finally {
      await file.discard();
    }
  }
}

function escapeXml(text: string): string {
  return text.replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`);
}
