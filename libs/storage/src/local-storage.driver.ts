import { constants, createReadStream } from 'node:fs';
import { copyFile, link, mkdir, open, rm, rmdir, stat, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { FILES_PATH, type UploadPolicySigner } from './signed-urls';
import { isValidStorageKey, StorageKeyTakenError, type StorageDriver, type UploadForm } from './storage-driver';

/** Attempts of a write whose new directory a concurrent delete removed (it removes only empty ones). */
const WRITE_ATTEMPTS = 3;

const code = (error: unknown) => (error as NodeJS.ErrnoException).code;

/**
 * Files on local disk under one directory (the default: `npm start` needs nothing more). One host
 * only: the gateway and crm-core must see the same directory. Downloads are streamed by the
 * gateway's /files route; uploads through a form go to the same route with a policy signed here.
 * A write never replaces a file (hard links, which fail on a name taken: O_EXCL's rule), and a
 * delete removes the directories it leaves empty (decisions.md "Upload forms").
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
    await this.place(key, async (target) => {
      try {
        await link(source, target);
      } catch (error) {
        if (code(error) !== 'EXDEV') throw error;
        await copyFile(source, target, constants.COPYFILE_EXCL);
      }
    });
    await unlink(source).catch(() => undefined);
  }

  async putBuffer(key: string, data: Buffer, _contentType: string): Promise<void> {
    await this.place(key, async (target) => {
      const temporary = `${target}.${process.pid}.${Date.now()}.part`;
      await writeFile(temporary, data, { flag: 'wx' });
      try {
        await link(temporary, target);
      } finally {
        await unlink(temporary).catch(() => undefined);
      }
    });
  }

  async copy(from: string, to: string): Promise<void> {
    const source = this.pathOf(from);
    await this.place(to, (target) => link(source, target));
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
    const file = this.pathOf(key);
    await rm(file, { force: true });
    await this.removeEmptyParents(file);
  }

  directDownloadUrl(): Promise<string | null> {
    return Promise.resolve(null);
  }

  uploadForm(key: string, maxBytes: number, expiresInSeconds: number): Promise<UploadForm> {
    const now = new Date();
    const expiration = new Date(now.getTime() + expiresInSeconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const { policy, signature } = this.policies.encode({ expiration, key, maxBytes });
    const date = now
      .toISOString()
      .replace(/[-:]/g, '')
      .replace(/\.\d{3}/, '');
    return Promise.resolve({
      url: `${this.publicUrl}${FILES_PATH}`,
      fields: {
        key,
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

  /**
   * Runs `write` for the key's path once its directory exists: a name taken is
   * {@link StorageKeyTakenError}; a directory a concurrent delete removed (ENOENT) is made again.
   * A failed write leaves no directory of its own behind.
   */
  private async place(key: string, write: (target: string) => Promise<void>): Promise<void> {
    const target = this.pathOf(key);
    for (let attempt = 1; ; attempt += 1) {
      await mkdir(path.dirname(target), { recursive: true });
      try {
        await write(target);
        return;
      } catch (error) {
        if (code(error) === 'ENOENT' && attempt < WRITE_ATTEMPTS) continue;
        await this.removeEmptyParents(target);
        if (code(error) === 'EEXIST') throw new StorageKeyTakenError(key);
        throw error;
      }
    }
  }

  /** Removes the directories above `file` that are empty, up to (not including) the root. */
  private async removeEmptyParents(file: string): Promise<void> {
    for (let dir = path.dirname(file); dir.startsWith(this.root + path.sep); dir = path.dirname(dir)) {
      try {
        await rmdir(dir);
      } catch {
        return;
      }
    }
  }
}
