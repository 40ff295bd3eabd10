import type { OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type Provider from 'oidc-provider';
import { createOidcProvider, type OidcProviderDeps } from './oidc-provider.factory';
import type { OidcKeys, OidcKeysRepository, SigningKeyPolicy } from './oidc-keys.repository';

type Handler = (req: IncomingMessage, res: ServerResponse) => unknown;

/**
 * The live oidc-provider instance. oidc-provider reads its keys once, at construction, so a
 * change of signing keys (scheduled rotation, an operator's rotation, a key another replica
 * created) builds a new instance and swaps it in; all its state is in PostgreSQL and Redis, so
 * requests in flight on the old instance finish normally.
 */
export class OidcProviderHolder implements OnApplicationBootstrap, OnModuleDestroy {
  private provider: Provider;
  private handler: Handler;
  private keys: OidcKeys;
  private timer: NodeJS.Timeout | undefined;
  private refreshing: Promise<void> | undefined;

  private constructor(
    private readonly deps: Omit<OidcProviderDeps, 'keys'>,
    private readonly repository: OidcKeysRepository,
    private readonly policy: SigningKeyPolicy,
    private readonly checkIntervalMs: number,
  ) {}

  static async create(
    deps: Omit<OidcProviderDeps, 'keys'>,
    repository: OidcKeysRepository,
    policy: SigningKeyPolicy,
    checkIntervalMs: number,
  ): Promise<OidcProviderHolder> {
    const holder = new OidcProviderHolder(deps, repository, policy, checkIntervalMs);
    const keys = await repository.load(policy);
    holder.install(await createOidcProvider({ ...deps, keys }), keys);
    return holder;
  }

  get current(): Provider {
    return this.provider;
  }

  /** The key of the interaction forms' CSRF tokens (cookie keys do not rotate). */
  get cookieKey(): string {
    return this.keys.cookieKeys[0];
  }

  get signingKid(): string {
    return this.keys.signingKid;
  }

  /** The Node request handler of the current instance. */
  readonly handle: Handler = (req, res) => this.handler(req, res);

  /** Reloads the keys (applying the rotation policy) and swaps the provider when they changed. */
  refresh(): Promise<void> {
    this.refreshing ??= (async () => {
      try {
        const keys = await this.repository.load(this.policy);
        if (keys.fingerprint === this.keys.fingerprint) return;
        const provider = await createOidcProvider({ ...this.deps, keys });
        const previous = this.keys.signingKid;
        this.install(provider, keys);
        this.deps.logger.info(
          { signing_kid: keys.signingKid, previous_signing_kid: previous, published_kids: keys.jwks.map((k) => k.kid) },
          'signing keys changed',
        );
      } finally {
        this.refreshing = undefined;
      }
    })();
    return this.refreshing;
  }

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => {
      this.refresh().catch((error: unknown) =>
        this.deps.logger.error({ err: error }, 'could not reload the signing keys; keeping the current ones'),
      );
    }, this.checkIntervalMs);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
  }

  private install(provider: Provider, keys: OidcKeys): void {
    this.provider = provider;
    this.handler = provider.callback() as Handler;
    this.keys = keys;
  }
}
