/**
 * A POST's Idempotency-Key as the gateway forwards it to crm-core in the request body
 * (RpcRequest.idempotency, signed with the rest of the body), for crm-core to record the key's
 * outcome in the write's own transaction (docs/decisions.md "Idempotency recorded with the write").
 */
export interface WriteIdempotency {
  /**
   * The key, scoped: base64url SHA-256 of the caller's scope (user, auth method, client) and the
   * key the client sent, so two users' or two credentials' equal keys never meet. crm-core keys its
   * rows by the caller's account and this.
   */
  key: string;
  /** base64url SHA-256 of the request (operation, path, query, body): the same key with another request is 409. */
  fingerprint: string;
}

/** The request field that carries {@link WriteIdempotency}. */
export const WRITE_IDEMPOTENCY_FIELD = 'idempotency';

/** How long crm-core keeps a key's outcome, and the gateway its copy: 24 hours. */
export const IDEMPOTENCY_RETENTION_HOURS = 24;

/** A scoped key or fingerprint: base64url of 32 bytes. */
export const WRITE_IDEMPOTENCY_TOKEN = /^[\w-]{43}$/;

/**
 * Whether crm-core executes the route's subject (`crm.*`): its writes record their keys with the
 * write. The other services' writes (auth-server's API keys, webhook-dispatcher's registrations)
 * rely on the gateway's Redis record alone.
 */
export function executedByCrmCore(subject: string): boolean {
  return subject.startsWith('crm.');
}
