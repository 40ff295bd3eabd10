/**
 * Redis keys shared by services (the auth-server writes them, the gateway reads them). Every key
 * starts with the deployment namespace (CRM_NAMESPACE).
 */
export const CacheKeys = {
  /** JSON CredentialRecord of a user. */
  credentials: (namespace: string, userId: string) => `${namespace}:auth:cred:${userId}`,
  /**
   * Highest CredentialRecord version written for a user: an older record is never written over it.
   * Its hash tag is the whole record key, so on a Redis Cluster both keys are in one slot (one
   * script writes them) while the record keeps its name (decisions.md "Redis Cluster").
   */
  credentialsVersion: (namespace: string, userId: string) => `${namespace}:auth:cred-ver:{${namespace}:auth:cred:${userId}}`,
  /** The version key's name before Redis Cluster: still kept in step on a single server for one release (rolling deploys). */
  legacyCredentialsVersion: (namespace: string, userId: string) => `${namespace}:auth:cred-ver:${userId}`,
  /** Present while a revoked OAuth grant's access tokens could still be unexpired. */
  revokedGrant: (namespace: string, grantId: string) => `${namespace}:auth:revoked-grant:${grantId}`,
  /** Set of the origins of public OAuth clients' redirect URIs: browser apps the API answers with CORS. */
  browserOrigins: (namespace: string) => `${namespace}:auth:browser-origins`,
  /**
   * Pub/sub channel on which the auth-server announces, after the Redis write, every change of a
   * credential record or revoked-grant flag ({@link CacheInvalidation}); the gateways drop their
   * in-memory copies (decisions.md "Credential cache in the gateway (issue 17)").
   */
  invalidations: (namespace: string) => `${namespace}:auth:invalidate`,
} as const;

/** Messages on {@link CacheKeys.invalidations}: which user's record or which grant's flag changed. */
export const CacheInvalidation = {
  user: (userId: string) => `user:${userId}`,
  grant: (grantId: string) => `grant:${grantId}`,
} as const;

/** Positive credential records live this long without a refresh; negative ones much shorter. */
export const CREDENTIALS_TTL_SECONDS = 3600;
export const UNKNOWN_CREDENTIALS_TTL_SECONDS = 30;
