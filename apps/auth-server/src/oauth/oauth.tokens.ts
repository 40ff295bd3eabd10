/** Injection token of the configured oidc-provider instance. */
export const OIDC_PROVIDER = Symbol('OIDC_PROVIDER');
