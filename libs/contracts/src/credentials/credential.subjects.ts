/** Subjects of credentials: gateway -> auth-server; spread into {@link Subjects}. */
export const CredentialSubjects = {
  /** gateway -> auth-server: API-key record of a user when Redis cannot answer. */
  CredentialsResolve: 'auth.credentials.resolve.v1',
  /** gateway -> auth-server: a bearer token's user record and grant status when Redis cannot answer. */
  TokenStatus: 'auth.tokens.status.v1',
  /** gateway -> auth-server: POST /change_auth_key. */
  ApiKeyRotate: 'auth.api-keys.rotate.v1',
} as const;
