import { createReadStream } from 'node:fs';
import { copyFile, mkdir, open, rename, rm, stat, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { FILES_PATH, type UploadPolicySigner } from './signed-urls';
import { isValidStorageKey, type StorageDriver, type UploadForm } from './storage-driver';

/**
 * Files on local disk under one directory (the default: `npm start` needs nothing more). One host
 * only: the gateway and crm-core must see the same directory. Downloads are streamed by the
 * gateway's /files route; uploads through a form go to the same route with a policy signed here.
 */
export class LocalStorageDriver implements StorageDriver {
  readonly provider = 'local' as const;
  private readonly root: string;

  constructor(
    directory: string,
    private readonly publicUrl: string,
    private readonly policies: UploadPolicySigner,
  ) {
    this.root = path.resolve(directory);
  }

  async putFile(key: string, source: string, _size: number, _contentType: string): Promise<void> {
    const target = await this.prepare(key);
    try {
      await rename(source, target);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
      await copyFile(source, target);
      await unlink(source);
    }
  }

  async putBuffer(key: string, data: Buffer, _contentType: string): Promise<void> {
    const target = await this.prepare(key);
    const temporary = `${target}.${process.pid}.${Date.now()}.part`;
    await writeFile(temporary, data);
    await rename(temporary, target);
  }

  async stat(key: string): Promise<{ size: number } | null> {
    try {
      const info = await stat(this.pathOf(key));
      return info.isFile() ? { size: info.size } : null;
    } catch {
      return null;
    }
  }

  async read(key: string): Promise<Readable | null> {
    if (!(await this.stat(key))) return null;
    return createReadStream(this.pathOf(key));
  }

  async readStart(key: string, bytes: number): Promise<Buffer> {
    let handle;
    try {
      handle = await open(this.pathOf(key), 'r');
    } catch {
      return Buffer.alloc(0);
    }
    try {
      const buffer = Buffer.alloc(bytes);
      const { bytesRead } = await handle.read(buffer, 0, bytes, 0);
      return buffer.subarray(0, bytesRead);
    } finally {
      await handle.close();
    }
  }

  async delete(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true });
  }

  directDownloadUrl(): Promise<string | null> {
    return Promise.resolve(null);
  }

  uploadForm(keyPrefix: string, maxBytes: number, expiresInSeconds: number): Promise<UploadForm> {
    const now = new Date();
    const expiration = new Date(now.getTime() + expiresInSeconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const { policy, signature } = this.policies.encode({ expiration, keyPrefix, maxBytes });
    const date = now
      .toISOString()
      .replace(/[-:]/g, '')
      .replace(/\.\d{3}/, '');
    return Promise.resolve({
      url: `${this.publicUrl}${FILES_PATH}`,
      fields: {
        key: '',
        'x-ignore-pattern': `${keyPrefix}__timestamp__/\${filename}`,
        acl: 'private',
        success_action_status: '201',
        policy,
        'x-amz-algorithm': 'CRM-HMAC-SHA256',
        'x-amz-credential': `local/${date.slice(0, 8)}/local/files/crm_request`,
        'x-amz-date': date,
        'x-amz-signature': signature,
      },
    });
  }

  private pathOf(key: string): string {
    if (!isValidStorageKey(key)) throw new Error('invalid storage key');
    const full = path.join(this.root, ...key.split('/'));
    if (!full.startsWith(this.root + path.sep)) throw new Error('invalid storage key');
    return full;
  }

  private async prepare(key: string): Promise<string> {
    const target = this.pathOf(key);
    await mkdir(path.dirname(target), { recursive: true });
    return target;
  }
}
