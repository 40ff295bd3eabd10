import busboy from 'busboy';
import type { IncomingMessage } from 'node:http';
import { ApiError, ErrorName } from '@crm/contracts';
import { FileTooLargeError, receiveFile, type IncomingFile } from '@crm/storage';

/** Fields of a multipart body: at most 20, each at most 4 KB (names, ids, a policy). */
const MAX_FIELDS = 20;
const MAX_FIELD_BYTES = 4096;
/** Body bytes beyond the size limit still read (and thrown away) after a refusal before answering anyway. */
const DRAIN_SLACK_BYTES = 1024 * 1024;

export interface ReceivedMultipart {
  /** The text fields, in the order sent (a repeated name keeps its first value). */
  fields: Record<string, string>;
  /** The file part written to a temporary file, with its client-side name; null when none was sent. */
  file: (IncomingFile & { filename: string; fieldName: string }) | null;
  /** What `beforeFile` answered (or resolved to) when the file part began. */
  context: unknown;
}

export function isMultipart(req: IncomingMessage): boolean {
  return (req.headers['content-type'] ?? '').toLowerCase().startsWith('multipart/form-data');
}

/**
 * Reads a multipart/form-data body: its fields, and one file part streamed to a temporary file
 * (never whole in memory), stopped past `maxBytes` with 413 `request_too_large`. `beforeFile` runs
 * when the file part begins, with the fields sent before it (as S3 wants them: fields first), and
 * may refuse the upload before a byte is written (it may be asynchronous: the part waits). File
 * names are read as UTF-8 (what browsers and fetch send), not busboy's default Latin-1.
 */
export function receiveMultipart(
  req: IncomingMessage,
  maxBytes: number,
  beforeFile: (fields: Record<string, string>) => unknown | Promise<unknown>,
  /** A lower limit for this file, from what `beforeFile` answered (a form policy's size range). */
  limitFor: (context: unknown) => number = () => maxBytes,
): Promise<ReceivedMultipart> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: req.headers,
        defParamCharset: 'utf8',
        limits: { fields: MAX_FIELDS, fieldSize: MAX_FIELD_BYTES, files: 1, parts: MAX_FIELDS + 1, fileSize: maxBytes + 1 },
      });
    } catch {
      reject(ApiError.invalid({ body: 'must be multipart/form-data with a boundary' }));
      return;
    }
    const fields: Record<string, string> = {};
    let context: unknown;
    let file: Promise<ReceivedMultipart['file']> = Promise.resolve(null);
    let failure: unknown;
    // The first failure ends the upload: the rest of the body is read and thrown away, not parsed,
    // and the answer (which closes the connection) waits until the client has sent it, so the
    // client is not cut off mid-write (EPIPE) before it reads the answer. The drain is bounded: past
    // the size limit and DRAIN_SLACK_BYTES more, the answer goes at once.
    const fail = (error: unknown) => {
      if (failure !== undefined) return;
      failure = error;
      req.unpipe(parser);
      let answered = false;
      let drained = 0;
      const answer = () => {
        if (answered) return;
        answered = true;
        req.off('data', count);
        void file.then(async (received) => {
          await received?.discard();
          reject(failure);
        });
      };
      const count = (chunk: Buffer) => {
        drained += chunk.length;
        if (drained > maxBytes + DRAIN_SLACK_BYTES) answer();
      };
      if (req.readableEnded) return answer();
      req.on('data', count);
      req.once('end', answer);
      req.once('close', answer);
      req.resume();
    };

    parser.on('field', (name, value, info) => {
      if (info.valueTruncated) return fail(ApiError.invalid({ [name]: `must be at most ${MAX_FIELD_BYTES} bytes` }));
      if (!(name in fields)) fields[name] = value;
    });
    parser.on('file', (fieldName, stream, info) => {
      if (failure) return stream.resume();
      const refuse = (error: unknown) => {
        stream.resume();
        fail(error);
        return null;
      };
      file = (async () => beforeFile({ ...fields }))().then((answer) => {
        context = answer;
        if (failure) return refuse(failure);
        const limit = Math.min(maxBytes, limitFor(answer));
        return receiveFile(stream, limit).then(
          (incoming) => ({ ...incoming, filename: info.filename ?? '', fieldName }),
          (error: unknown) =>
            refuse(
              error instanceof FileTooLargeError
                ? new ApiError(ErrorName.RequestTooLarge, `The file is larger than ${limit} bytes`, {
                    file: `must be at most ${limit} bytes`,
                  })
                : error,
            ),
        );
      }, refuse);
    });
    parser.on('partsLimit', () => fail(ApiError.invalid({ body: 'has too many parts (one file and at most 20 fields)' })));
    parser.on('filesLimit', () => fail(ApiError.invalid({ file: 'only one file may be sent' })));
    parser.on('fieldsLimit', () => fail(ApiError.invalid({ body: `has more than ${MAX_FIELDS} fields` })));
    parser.on('error', () => fail(ApiError.invalid({ body: 'is not a well-formed multipart/form-data body' })));
    parser.on('close', () => {
      void file.then((received) => {
        if (failure === undefined) resolve({ fields, file: received, context });
      });
    });
    req.on('error', (error) => fail(error));
    req.pipe(parser);
  });
}
