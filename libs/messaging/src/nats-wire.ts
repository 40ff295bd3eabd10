import { randomBytes } from 'node:crypto';
import type { RpcReply } from '@crm/contracts';

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
  return JSON.stringify(reply);
}

/** The reply's JSON as sent: callers check its shape ({@link isRpcReply}) before trusting it. */
export function decodeReply(bytes: Uint8Array): unknown {
  return JSON.parse(decoder.decode(bytes));
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
