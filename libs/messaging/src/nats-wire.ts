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
