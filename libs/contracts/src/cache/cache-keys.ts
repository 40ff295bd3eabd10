/**
 * Redis keys shared by services (the auth-server writes them, the gateway reads them). Every key
 * starts with the deployment namespace (CRM_NAMESPACE).
 */
export const CacheKeys = {
  /** JSON CredentialRecord of a user. */
  credentials: (namespace: string, userId: string) => `${namespace}:auth:cred:${userId}`,
  /** Generation counter of a user's credentials, bumped on every change (guards stale refills). */
  credentialsGeneration: (namespace: string, userId: string) => `${namespace}:auth:cred-gen:${userId}`,
  /** Present while a revoked OAuth grant's access tokens could still be unexpired. */
  revokedGrant: (namespace: string, grantId: string) => `${namespace}:auth:revoked-grant:${grantId}`,
} as const;

/** Positive credential records live this long without a refresh; negative ones much shorter. */
export const CREDENTIALS_TTL_SECONDS = 3600;
export const UNKNOWN_CREDENTIALS_TTL_SECONDS = 30;
