import { randomInt } from 'node:crypto';
import pg from 'pg';
import type { Logger } from 'pino';
import type { DeliveriesRepository } from './deliveries.repository';
import {
  DUE_CHANNEL,
  freeClaimsOf,
  INGEST_KEY,
  listenForDispatcherNotifications,
  lockReplicaKey,
  notifyDue,
  tryLockReplicaKey,
  unlockReplicaKey,
  WEBHOOKS_CHANGED_CHANNEL,
} from './replica-session.repository';

export interface CoordinatorHooks {
  /** This replica now holds the ingest lock: start taking events from the stream. */
  onIngest(): void;
  /** It lost it (connection to PostgreSQL lost, or stopping): stop taking events. */
  onIngestLost(): void;
  /** Deliveries may have become claimable (NOTIFY from another replica, or claims freed from a dead one). */
  onDue(): void;
  /** Webhooks of this account changed; null: of any account (the session was renewed, notifications may be lost). */
  onWebhooksChanged(accountId: string | null): void;
}

/**
 * The replica's own PostgreSQL session, which is how replicas know of each other without a
 * registry: it holds a session advisory lock on a random key that marks this replica's claims
 * (`locked_by`) — when the process dies, PostgreSQL drops the session and the lock, and any other
 * replica that can take the lock knows the claims are orphaned and frees them at once. The same
 * session competes for the ingest lock (one replica takes events from the stream at a time, so
 * first attempts keep the stream's order per record) and LISTENs for due deliveries.
 */
export class ReplicaCoordinator {
  private client: pg.Client | undefined;
  private key: number | null = null;
  private ingesting = false;
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;
  private busy = false;
  private lastSweep = 0;

  constructor(
    private readonly databaseUrl: string,
    private readonly repository: DeliveriesRepository,
    private readonly logger: Logger,
    private readonly hooks: CoordinatorHooks,
    private readonly options: { tickMs: number; sweepMs: number } = { tickMs: 500, sweepMs: 2000 },
  ) {}

  /** The key this replica claims deliveries with; null while it has no session (then it claims nothing). */
  get claimKey(): number | null {
    return this.key;
  }

  get isIngesting(): boolean {
    return this.ingesting;
  }

  async start(): Promise<void> {
    await this.connect().catch((error) =>
      this.logger.warn({ detail: (error as Error).message }, 'webhook dispatcher: no PostgreSQL session yet; retrying'),
    );
    this.timer = setInterval(() => void this.tick(), this.options.tickMs);
    this.timer.unref();
  }

  /** Tells other replicas that deliveries wait for someone to claim them. */
  async notifyDue(): Promise<void> {
    if (this.client) await notifyDue(this.client).catch(() => undefined);
  }

  /** Ends the session: the locks go with it (another replica takes the ingest lock within a tick). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    this.loseIngest();
    const client = this.client;
    this.client = undefined;
    this.key = null;
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({
      connectionString: this.databaseUrl,
      application_name: 'webhook-dispatcher-replica',
      connectionTimeoutMillis: 5000,
      keepAlive: true,
    });
    const lost = (reason: string) => {
      if (this.client !== client) return;
      this.logger.warn({ reason }, 'webhook dispatcher: replica session to PostgreSQL lost; reconnecting');
      this.client = undefined;
      this.key = null;
      this.loseIngest();
      this.hooks.onWebhooksChanged(null);
    };
    client.on('error', (error) => lost(error.message));
    client.on('end', () => lost('closed'));
    client.on('notification', (message) => {
      if (message.channel === DUE_CHANNEL) this.hooks.onDue();
      else if (message.channel === WEBHOOKS_CHANGED_CHANNEL) this.hooks.onWebhooksChanged(message.payload ?? null);
    });
    await client.connect();
    try {
      const key = randomInt(1, 2 ** 31 - 1);
      await lockReplicaKey(client, key);
      await listenForDispatcherNotifications(client);
      if (this.stopped) throw new Error('stopped');
      this.hooks.onWebhooksChanged(null);
      this.client = client;
      this.key = key;
      this.logger.info({ replica_key: key }, 'webhook dispatcher: replica registered');
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
  }

  private loseIngest(): void {
    if (!this.ingesting) return;
    this.ingesting = false;
    this.hooks.onIngestLost();
  }

  private async tick(): Promise<void> {
    if (this.busy || this.stopped) return;
    this.busy = true;
    try {
      if (!this.client) await this.connect();
      const client = this.client;
      if (!client) return;
      if (!this.ingesting) {
        const got = await tryLockReplicaKey(client, INGEST_KEY);
        if (got && this.client === client && !this.stopped) {
          this.ingesting = true;
          this.logger.info('webhook dispatcher: this replica takes events from the stream');
          this.hooks.onIngest();
        }
      }
      if (Date.now() - this.lastSweep >= this.options.sweepMs) {
        this.lastSweep = Date.now();
        await this.freeOrphanedClaims(client);
      }
    } catch (error) {
      this.logger.debug({ detail: (error as Error).message }, 'webhook dispatcher: coordination tick failed');
    } finally {
      this.busy = false;
    }
  }

  /** Claims of replicas whose session is gone (their lock is free) go back to the schedule. */
  private async freeOrphanedClaims(client: pg.Client): Promise<void> {
    const own = this.key;
    if (own === null) return;
    for (const holder of await this.repository.claimHolders(own)) {
      if (!(await tryLockReplicaKey(client, holder))) continue;
      try {
        const freed = await freeClaimsOf(client, holder);
        this.logger.warn({ replica_key: holder, deliveries: freed }, 'webhook dispatcher: freed the claims of a replica that is gone');
      } finally {
        await unlockReplicaKey(client, holder);
      }
      this.hooks.onDue();
    }
  }
}
