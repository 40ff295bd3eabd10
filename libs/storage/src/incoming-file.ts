import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { SNIFF_BYTES } from './file-types';

export class FileTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`The file is larger than ${maxBytes} bytes`);
    this.name = 'FileTooLargeError';
  }
}

/** An upload written to a private temporary file: its size, its first bytes, and where it is. */
export interface IncomingFile {
  path: string;
  size: number;
  head: Buffer;
  /** Removes the temporary file (no error when it was moved into storage already). */
  discard(): Promise<void>;
}

/**
 * Streams `source` to a temporary file, counting bytes: past `maxBytes` it stops at once with
 * {@link FileTooLargeError} (and removes what it wrote). The first {@link SNIFF_BYTES} bytes are kept
 * for the content check. Memory stays at one chunk, whatever the file's size.
 */
export async function receiveFile(source: Readable, maxBytes: number, directory = tmpdir()): Promise<IncomingFile> {
  await mkdir(directory, { recursive: true });
  const file = path.join(directory, `crm-upload-${process.pid}-${randomBytes(8).toString('hex')}`);
  const discard = () => rm(file, { force: true });
  let size = 0;
  const headChunks: Buffer[] = [];
  let headLength = 0;
  const meter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      size += chunk.length;
      if (size > maxBytes) return done(new FileTooLargeError(maxBytes));
      if (headLength < SNIFF_BYTES) {
        const part = chunk.subarray(0, SNIFF_BYTES - headLength);
        headChunks.push(part);
        headLength += part.length;
      }
      done(null, chunk);
    },
  });
  try {
    await pipeline(source, meter, createWriteStream(file, { mode: 0o600 }));
  } catch (error) {
    await discard();
    throw error;
  }
  return { path: file, size, head: Buffer.concat(headChunks), discard };
}
