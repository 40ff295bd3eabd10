import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';

/** What GET /attachments/s3_form answers: where to POST the file, and the form fields to send with it. */
export interface UploadForm {
  url: string;
  fields: Record<string, string>;
}

/** An object is at that key already: no write replaces a stored object (decisions.md "Upload forms"). */
export class StorageKeyTakenError extends Error {
  constructor(readonly key: string) {
    super('an object is stored under this key already');
    this.name = 'StorageKeyTakenError';
  }
}

/**
 * Where the bytes of attachments, photos and logos live (decisions.md "Attachments"). Keys are
 * `<owner id>/<server nonce>/<file name>` (owner: the contact, record or company), checked by
 * {@link isValidStorageKey}. Bytes go through streams or files, never whole into memory. No write
 * replaces an object: a key taken is {@link StorageKeyTakenError} (decisions.md "Upload forms").
 */
export interface StorageDriver {
  /** `storage_provider` of the files it keeps: `local`, or `amazon` (OnePageCRM's name for S3). */
  readonly provider: 'local' | 'amazon';
  /** Stores the file at `path` (a finished upload on local disk) under `key`, which must be free. */
  putFile(key: string, path: string, size: number, contentType: string): Promise<void>;
  /** Stores a small generated file (a thumbnail, a photo) under a free `key`. */
  putBuffer(key: string, data: Buffer, contentType: string): Promise<void>;
  /** Copies the object at `from` to the free key `to` (a registered upload leaves its form's key). */
  copy(from: string, to: string): Promise<void>;
  /** Size of the object, or null when there is none. */
  stat(key: string): Promise<{ size: number } | null>;
  /** The object's bytes as a stream; null when there is none. */
  read(key: string): Promise<Readable | null>;
  /** At most the first `bytes` bytes (empty when there is no object). */
  readStart(key: string, bytes: number): Promise<Buffer>;
  /** Removes the object (and, on disk, the directories it leaves empty); no error when there is none. */
  delete(key: string): Promise<void>;
  /**
   * A direct, short-lived download link (a presigned GET of the bucket that answers with
   * Content-Disposition: attachment), or null when the gateway streams the bytes itself.
   */
  directDownloadUrl(key: string, filename: string, expiresInSeconds: number): Promise<string | null>;
  /** A form that lets a client upload one file of 1 to `maxBytes` bytes under exactly `key`. */
  uploadForm(key: string, maxBytes: number, expiresInSeconds: number): Promise<UploadForm>;
}

/** Injection token of the configured {@link StorageDriver}. */
export const STORAGE_DRIVER = Symbol('STORAGE_DRIVER');

/**
 * 1-1024 characters of segments separated by `/`: no empty, `.` or `..` segment, no backslash or
 * control character. Keys come from clients (upload forms), so the local driver relies on this.
 */
export function isValidStorageKey(key: string): boolean {
  if (key.length === 0 || key.length > 1024 || key.includes('\\')) return false;
  for (let i = 0; i < key.length; i += 1) {
    const code = key.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return false;
  }
  return key.split('/').every((segment) => segment.length > 0 && segment !== '.' && segment !== '..');
}

/** 128 random bits as 22 base64url characters: the middle segment of a key the server chose. */
export function newStorageNonce(): string {
  return randomBytes(16).toString('base64url');
}

/** `<owner id>/<nonce>/<file name>`: a fresh key under an owner, unique without a lookup. */
export function newStorageKey(ownerId: string, filename: string, nonce = newStorageNonce()): string {
  return `${ownerId}/${nonce}/${filename}`;
}

/** The middle segment of `<owner>/<nonce>/<name>`, or null for another shape. */
export function storageKeyNonce(key: string): string | null {
  const parts = key.split('/');
  return parts.length === 3 && /^[A-Za-z0-9_.-]{22,80}$/.test(parts[1]) ? parts[1] : null;
}
