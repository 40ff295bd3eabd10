import { Inject, Injectable } from '@nestjs/common';
import { ApiError, assertKnownParameters, ErrorName, parseContract, type Caller } from '@crm/contracts';
import {
  checkFileContent,
  contentTypeOf,
  newStorageNonce,
  sanitizeFilename,
  sniffImage,
  STORAGE_DRIVER,
  StoredUploadSigner,
  type StorageDriver,
} from '@crm/storage';
import type { IncomingMessage } from 'node:http';
import { ApiPipeline } from '../api/api-pipeline';
import { ApiService, authorizeRoute, type ApiInput } from '../api/api.service';
import { GatewayConfig } from '../config/gateway.config';
import type { IdempotentOutcome } from '../limits/idempotency';
import type { ResolvedRoute } from '../routing/route-table';
import { isMultipart, receiveMultipart } from './multipart-upload';

/** Path parameters that name the record (or contact, or company) a file is stored under. */
const OWNER_PARAMS = ['note_id', 'call_id', 'meeting_id', 'deal_id', 'contact_id', 'company_id'];
const DATA_URI = /^data:image\/[a-z0-9.+-]{1,40};base64,/i;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * Routes that take a file (`upload` in their declaration; decisions.md "Attachments"). The bytes
 * stop here: a multipart file part, or a photo's base64 `image`, is checked (size, type by its
 * first bytes) and streamed to the storage driver under `<owner id>/<nonce>.<mac>/<name>`, a key
 * bound to the caller's account and the owner (StoredUploadSigner); crm-core then gets the stored
 * key over NATS, never the bytes, checks the file again and records it. The gateway removes what
 * it stored when crm-core refuses, and a photo's or logo's upload in any case (crm-core keeps a
 * square copy). A JSON body with `key` (a file uploaded through the form of GET
 * /attachments/s3_form) goes through the ordinary pipeline.
 */
@Injectable()
export class UploadPipeline {
  constructor(
    private readonly pipeline: ApiPipeline,
    private readonly api: ApiService,
    private readonly config: GatewayConfig,
    @Inject(STORAGE_DRIVER) private readonly storage: StorageDriver,
    private readonly keys: StoredUploadSigner,
  ) {}

  async run(
    caller: Caller,
    resolved: ResolvedRoute,
    req: IncomingMessage,
    input: ApiInput,
    idempotencyKey?: string,
  ): Promise<IdempotentOutcome> {
    authorizeRoute(caller, resolved.route);
    // A misspelt query parameter is refused before any byte is stored (the pipeline checks it again).
    assertKnownParameters(resolved.route.request, input.query);
    if (isMultipart(req)) return { ...(await this.multipart(caller, resolved, req, input)), replayed: false };
    const body = input.body as Record<string, unknown> | undefined;
    if (resolved.route.upload === 'image' && body && typeof body === 'object' && typeof body.image === 'string') {
      return { ...(await this.base64Image(caller, resolved, input, body)), replayed: false };
    }
    return this.pipeline.run(caller, resolved, input, idempotencyKey);
  }

  private async multipart(caller: Caller, resolved: ResolvedRoute, req: IncomingMessage, input: ApiInput) {
    const image = resolved.route.upload === 'image';
    const received = await receiveMultipart(req, this.config.ATTACHMENT_MAX_BYTES, (fields) => {
      const owner = ownerOf(resolved.params, fields);
      if (!owner) throw ApiError.invalid({ file: 'send reference_id (or contact_id) before the file part' });
      return owner;
    });
    const { file, fields } = received;
    if (!file) throw ApiError.invalid({ [image ? 'image' : 'file']: 'is required (a file part)' });
    try {
      const filename = sanitizeFilename(fields.name ?? file.filename);
      let contentType: string;
      if (image) {
        if (!sniffImage(file.head)) throw unsupported('image', 'must be a PNG, JPEG, GIF or WebP image');
        contentType = 'application/octet-stream';
      } else {
        const check = checkFileContent(filename, file.head);
        if (!check.ok) throw unsupported('file', check.reason);
        contentType = check.contentType;
      }
      const key = this.keys.key(
        image ? 'image' : 'file',
        caller.account_id,
        received.context as string,
        image ? 'upload' : filename,
        newStorageNonce(),
      );
      await this.storage.putFile(key, file.path, file.size, contentType);
      const { file: _file, image: _image, key: _key, ...rest } = fields;
      return await this.withStoredFile(key, image, () => this.api.handle(caller, resolved, { ...input, body: { ...rest, key } }));
    } finally {
      await file.discard();
    }
  }

  /** OnePageCRM's photos and logos: `image` in base64 (or a data URI) within the 1 MiB JSON body. */
  private async base64Image(caller: Caller, resolved: ResolvedRoute, input: ApiInput, body: Record<string, unknown>) {
    parseContract(resolved.route.request, { ...input.query, ...body, ...resolved.params });
    const text = (body.image as string).replace(DATA_URI, '').replace(/\s/g, '');
    if (!BASE64.test(text)) throw ApiError.invalid({ image: 'must be base64 image data' });
    const data = Buffer.from(text, 'base64');
    if (!sniffImage(data)) throw unsupported('image', 'must be a PNG, JPEG, GIF or WebP image');
    const owner = ownerOf(resolved.params, {});
    if (!owner) throw ApiError.notFound('Not found');
    const key = this.keys.key('image', caller.account_id, owner, 'upload', newStorageNonce());
    await this.storage.putBuffer(key, data, contentTypeOf('upload'));
    const { image: _image, ...rest } = body;
    return this.withStoredFile(key, true, () => this.api.handle(caller, resolved, { ...input, body: { ...rest, key } }));
  }

  /** Calls crm-core about a stored file; the file is removed when the call fails, or always when it is a photo's or logo's upload. */
  private async withStoredFile<T>(key: string, always: boolean, call: () => Promise<T>): Promise<T> {
    let kept = false;
    try {
      const answer = await call();
      kept = !always;
      return answer;
    } finally {
      if (!kept) await this.storage.delete(key).catch(() => undefined);
    }
  }
}

function unsupported(field: string, reason: string): ApiError {
  return new ApiError(ErrorName.UnsupportedMediaType, `The ${field} is not accepted: ${reason}`, { [field]: reason });
}

/** The id the file is stored under: the path's record, contact or company, else reference_id or contact_id sent before the file. */
function ownerOf(params: Record<string, string>, fields: Record<string, string>): string | null {
  for (const name of OWNER_PARAMS) {
    if (params[name] === undefined) continue;
    const id = normalized(params[name]);
    if (!id) throw ApiError.notFound(`No record of the account has this ${name}`);
    return id;
  }
  return normalized(fields.reference_id) ?? normalized(fields.contact_id);
}

function normalized(value: string | undefined): string | null {
  const id = value?.trim().toLowerCase();
  return id && /^[0-9a-f]{24}$/.test(id) ? id : null;
}
