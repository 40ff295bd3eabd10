import { randomBytes } from 'node:crypto';
import type { RpcReply } from '@crm/contracts';
import { stringifyWithFragments } from './json-fragment';

/**
 * The platform's RPC wire format, in one place (decisions.md "Lean RPC and validation once"): a
 * request's body is the JSON of what the sender passes (an RpcRequest `{caller, payload, origin}`,
 * or an internal message), a reply's body the JSON of the RpcReply. The subject names the
 * handler, the headers carry the rest (RpcHeaders); there is no envelope around either.
 */
const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function encodeRequest(body: unknown): Uint8Array {
  return encoder.encode(JSON.stringify(body));
}

export function decodeRequest(bytes: Uint8Array): unknown {
  return JSON.parse(decoder.decode(bytes));
}

export function encodeReply(reply: RpcReply): string {
  return stringifyWithFragments(reply);
}

const DATA_KEY = ',"data":';
const DATA_KEY_BYTES = encoder.encode(DATA_KEY);
const CLOSING_BRACE = 0x7d;

/**
 * A reply's JSON with `data` last, and the offset of `data`'s text in the reply's UTF-8 bytes (the
 * RpcHeaders.replyDataAt header; `data` runs to the last `}`). RpcClient.call with `rawData`
 * passes those bytes on without decoding or parsing them: the gateway's answer embeds them as
 * they are. The head also carries `data_versions` (see {@link RawJsonData}). Still one JSON
 * document: a reader that knows nothing of this parses it whole.
 */
export function encodeReplyWithData(reply: RpcReply): { text: string; dataAt?: number } {
  if (!reply.ok || reply.data === undefined) return { text: JSON.stringify(reply) };
  const { data, ...head } = reply;
  // Stored JSON (contact documents) spliced in as it is.
  const dataJson = stringifyWithFragments(data);
  const headJson = JSON.stringify({ ...head, data_versions: dataVersions(data) });
  const prefix = `${headJson.slice(0, -1)}${DATA_KEY}`;
  return { text: `${prefix}${dataJson}}`, dataAt: Buffer.byteLength(prefix) };
}

/**
 * A success reply's `data` as the UTF-8 bytes of the JSON text crm-core wrote, neither decoded nor
 * parsed: the gateway hashes them for the ETag and writes them into its answer as they are.
 * `json` decodes them (once); `toJSON` parses them, so whatever serializes the reply (the
 * idempotency store) gets the data itself.
 */
export class RawJsonData {
  #json: string | undefined;

  constructor(
    readonly bytes: Uint8Array,
    private readonly versions: Record<string, number>,
  ) {}

  /** The data's JSON text. */
  get json(): string {
    return (this.#json ??= decoder.decode(this.bytes));
  }

  /**
   * The version of the record `data` holds under `key`, as etag.ts recordVersion(data, key)
   * computes it from the parsed data: `data[key]` when that is an object, else `data` itself.
   */
  versionOf(key: string): number {
    return this.versions[key] ?? this.versions[''] ?? 0;
  }

  toJSON(): unknown {
    return JSON.parse(this.json);
  }
}

/**
 * The version (epoch ms of `modified_at`, for an object with a string `id`) of `data` itself
 * (key '') and of each of its top-level object values: 0 where there is none.
 */
export function dataVersions(data: unknown): Record<string, number> {
  const out: Record<string, number> = {};
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return out;
  out[''] = recordVersionOf(data as Record<string, unknown>);
  for (const [key, value] of Object.entries(data as Record<string, unknown>))
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) out[key] = recordVersionOf(value as Record<string, unknown>);
  return out;
}

/** The version of one record: the epoch ms of its `modified_at` when it has a string `id`, else 0. */
export function recordVersionOf(record: Record<string, unknown>): number {
  if (typeof record.id !== 'string' || typeof record.modified_at !== 'string') return 0;
  const ms = Date.parse(record.modified_at);
  return Number.isFinite(ms) && ms > 0 ? ms : 0;
}

/**
 * The reply's JSON as sent, without the wire-only `data_versions` ({@link encodeReplyWithData}):
 * callers check its shape ({@link isRpcReply}) before trusting it.
 */
export function decodeReply(bytes: Uint8Array): unknown {
  return withoutVersions(JSON.parse(decoder.decode(bytes)));
}

function withoutVersions(reply: unknown): unknown {
  if (reply !== null && typeof reply === 'object' && 'data_versions' in reply) {
    const { data_versions: _versions, ...rest } = reply as Record<string, unknown>;
    return rest;
  }
  return reply;
}

/**
 * A reply whose `data` starts at byte `dataAt` ({@link encodeReplyWithData}): the head decoded and
 * parsed, `data` left as bytes ({@link RawJsonData}); anything else (no offset, or not the
 * expected bytes there) parsed whole.
 */
export function decodeReplyRaw(bytes: Uint8Array, dataAt: number | undefined): unknown {
  if (
    dataAt === undefined ||
    !Number.isInteger(dataAt) ||
    dataAt < DATA_KEY_BYTES.length ||
    dataAt >= bytes.length ||
    !carriesDataAt(bytes, dataAt)
  )
    return decodeReply(bytes);
  let head: Record<string, unknown>;
  try {
    head = JSON.parse(`${decoder.decode(bytes.subarray(0, dataAt - DATA_KEY_BYTES.length))}}`) as Record<string, unknown>;
  } catch {
    return decodeReply(bytes);
  }
  const { data_versions: versions, ...reply } = head;
  return { ...reply, data: new RawJsonData(bytes.subarray(dataAt, bytes.length - 1), (versions ?? {}) as Record<string, number>) };
}

/** `,"data":` ends at `dataAt`, and the reply ends with `}`. */
function carriesDataAt(bytes: Uint8Array, dataAt: number): boolean {
  if (bytes[bytes.length - 1] !== CLOSING_BRACE) return false;
  const from = dataAt - DATA_KEY_BYTES.length;
  for (let i = 0; i < DATA_KEY_BYTES.length; i += 1) if (bytes[from + i] !== DATA_KEY_BYTES[i]) return false;
  return true;
}

/**
 * What a request's signature covers besides the subject: its nonce (the RpcHeaders.nonce header)
 * and its body. The nonce makes every request's signature unique (the consumer refuses a signature
 * it has seen as a replay); without one, the body alone.
 */
export function signedBytes(data: Uint8Array, nonce: string | undefined): Uint8Array {
  if (nonce === undefined) return data;
  const prefix = encoder.encode(`${nonce}\n`);
  const bytes = new Uint8Array(prefix.length + data.length);
  bytes.set(prefix);
  bytes.set(data, prefix.length);
  return bytes;
}

/** Request nonces: a random prefix per process and a counter (unique without a random draw per request). */
const NONCE_PREFIX = randomBytes(9).toString('base64url');
let nonces = 0;

export function nextNonce(): string {
  nonces += 1;
  return `${NONCE_PREFIX}.${nonces.toString(36)}`;
}
