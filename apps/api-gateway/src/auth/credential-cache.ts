import { CacheKeys, type CredentialRecord } from '@crm/contracts';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { GatewayConfig } from '../config/gateway.config';
import { BoundedCache } from './bounded-cache';

/** Taken before a Redis read; the read's result is kept only if the ticket is still good. */
export type FillTicket = number | null;

const USER_PREFIX = 'user:';
const GRANT_PREFIX = 'grant:';

/**
 * Opened credential records (per user id) and revoked-grant flags (per grant id) that this gateway
 * read from Redis, kept in memory so a request needs no Redis round trip. The auth-server announces
 * every change on a pub/sub channel (`CacheKeys.invalidations`), from the same Redis script or
 * transaction that writes it, so exactly when the write happened; a message drops the entry.
 *
 * Why a revoked key or grant cannot outlive the announcement by more than CREDENTIAL_CACHE_MAX_LAG_MS
 * (plus delivery time), and never by the TTL:
 * - Entries are served only while the subscription is live: its SUBSCRIBE was confirmed on the
 *   current connection, and a PING on that connection, sent at most MAX_LAG ago, was answered.
 *   Redis writes a connection's replies in order, so that answer came after every message
 *   published before the PING reached Redis: at any moment, every change announced more than
 *   MAX_LAG ago has been applied. A connection that dies silently (no FIN, a partition) stops
 *   answering PINGs, and the cache lapses to Redis reads within MAX_LAG.
 * - Pub/sub loses messages only while the subscriber is disconnected. On 'error', 'close',
 *   'reconnecting' or 'end' the cache is emptied and bypassed, and stays so until a new SUBSCRIBE
 *   is confirmed; PING answers from an older connection (ioredis may resend commands after a
 *   reconnect) do not count.
 * - A Redis read can race with a change: read the old value, the change and its announcement land,
 *   then the old value would be kept. Every message and every loss bumps an epoch; a fill is kept
 *   only if the epoch did not move since before the read was sent. The announcement follows the
 *   write in Redis, which followed the read; so it reaches us either before the read's reply (the
 *   epoch moved: not kept) or after the value was kept (and drops it).
 * - Only values read from Redis are kept, never a reply of the auth-server over NATS: the API-key
 *   change writes Redis before its transaction commits, so a database read in that window still
 *   sees the old key, and its announcement may have come and gone.
 * - Nothing that failed is kept; anyone who can publish on the channel can only drop entries.
 * The TTL (CREDENTIAL_CACHE_TTL_MS) is a safety net against a bug in this argument, not a part of it.
 */
export class CredentialCache {
  private readonly records: BoundedCache<string, CredentialRecord>;
  private readonly grants: BoundedCache<string, boolean>;
  private readonly channel: string;
  private subscriber: Redis | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  /** Bumps whenever the subscriber connection may have missed a message. */
  private connection = 0;
  /** The connection whose SUBSCRIBE was confirmed; -1: none. */
  private subscribedOn = -1;
  private subscribing = false;
  /** Entries may be served until then (epoch ms): the last answered PING's send time + MAX_LAG. */
  private confirmedUntil = 0;
  /** Bumps on every message and every loss: fills whose read started before are not kept. */
  private epoch = 0;
  private lost = false;

  constructor(
    private readonly redis: Redis,
    private readonly config: GatewayConfig,
    private readonly logger: Logger,
  ) {
    this.records = new BoundedCache(config.CREDENTIAL_CACHE_MAX_ENTRIES);
    this.grants = new BoundedCache(config.CREDENTIAL_CACHE_MAX_ENTRIES);
    this.channel = CacheKeys.invalidations(config.CRM_NAMESPACE);
  }

  /** Opens the subscriber connection (none if the cache is turned off). */
  start(): void {
    if (this.config.CREDENTIAL_CACHE_MAX_ENTRIES === 0 || this.subscriber) return;
    // Its own connection: a subscribed connection can run nothing else. Re-subscribing and
    // resending are ours to do, so a reconnect is always seen (see the class comment).
    const subscriber = this.redis.duplicate({
      connectionName: `${this.config.CRM_NAMESPACE}:auth-invalidations`,
      autoResubscribe: false,
      autoResendUnfulfilledCommands: false,
      enableAutoPipelining: false,
      enableOfflineQueue: false,
    });
    this.subscriber = subscriber;
    subscriber.on('message', (channel: string, message: string) => this.onMessage(channel, message));
    subscriber.on('ready', () => this.tick());
    for (const event of ['error', 'close', 'reconnecting', 'end']) subscriber.on(event, (error?: unknown) => this.lose(event, error));
    this.heartbeat = setInterval(() => this.tick(), Math.max(1, Math.floor(this.config.CREDENTIAL_CACHE_MAX_LAG_MS / 3)));
    this.heartbeat.unref();
    this.tick();
  }

  async stop(): Promise<void> {
    clearInterval(this.heartbeat);
    const subscriber = this.subscriber;
    this.subscriber = undefined;
    this.lose('stop');
    await subscriber?.quit().catch(() => subscriber.disconnect());
  }

  /** Whether entries may be served now (and fills kept). */
  isLive(now = Date.now()): boolean {
    return this.subscribedOn === this.connection && now < this.confirmedUntil;
  }

  record(userId: string): CredentialRecord | undefined {
    return this.isLive() ? this.records.get(userId) : undefined;
  }

  /** Whether the grant was revoked; undefined: not known here. */
  grantRevoked(grantId: string): boolean | undefined {
    return this.isLive() ? this.grants.get(grantId) : undefined;
  }

  /** Take before sending the Redis read whose result may be kept; null: it will not be. */
  ticket(): FillTicket {
    return this.isLive() ? this.epoch : null;
  }

  keepRecord(ticket: FillTicket, userId: string, record: CredentialRecord): void {
    if (this.valid(ticket)) this.records.set(userId, record, this.expiry());
  }

  keepGrant(ticket: FillTicket, grantId: string, revoked: boolean): void {
    if (this.valid(ticket)) this.grants.set(grantId, revoked, this.expiry());
  }

  private valid(ticket: FillTicket): boolean {
    return ticket !== null && ticket === this.epoch && this.isLive();
  }

  private expiry(): number {
    return Date.now() + this.config.CREDENTIAL_CACHE_TTL_MS;
  }

  private onMessage(channel: string, message: string): void {
    if (channel !== this.channel) return;
    this.epoch += 1;
    if (message.startsWith(USER_PREFIX)) this.records.delete(message.slice(USER_PREFIX.length));
    else if (message.startsWith(GRANT_PREFIX)) this.grants.delete(message.slice(GRANT_PREFIX.length));
    else this.clear();
  }

  /** Subscribes if the current connection is not subscribed yet, else confirms it with a PING. */
  private tick(): void {
    const subscriber = this.subscriber;
    if (!subscriber || subscriber.status !== 'ready') return;
    const connection = this.connection;
    const sentAt = Date.now();
    if (this.subscribedOn === connection) {
      subscriber.ping().then(
        () => this.confirm(connection, sentAt),
        () => undefined, // an unanswered PING only lets the cache lapse
      );
      return;
    }
    if (this.subscribing) return;
    this.subscribing = true;
    subscriber
      .subscribe(this.channel)
      .then(
        () => {
          if (connection !== this.connection) return;
          this.subscribedOn = connection;
          this.confirm(connection, sentAt);
          if (this.lost) this.logger.info('credential cache: invalidations subscribed again; cache in use');
          this.lost = false;
        },
        () => undefined, // the next tick tries again
      )
      .finally(() => (this.subscribing = false));
  }

  private confirm(connection: number, sentAt: number): void {
    if (connection !== this.connection || this.subscribedOn !== connection) return;
    this.confirmedUntil = Math.max(this.confirmedUntil, sentAt + this.config.CREDENTIAL_CACHE_MAX_LAG_MS);
  }

  /** The subscriber may have missed messages: empty the cache and bypass it until subscribed again. */
  private lose(event: string, error?: unknown): void {
    this.connection += 1;
    this.subscribedOn = -1;
    this.confirmedUntil = 0;
    this.clear();
    if (!this.lost && event !== 'stop') {
      const detail = error instanceof Error ? error.message : undefined;
      this.logger.warn({ event, detail }, 'credential cache: invalidation channel lost; reading Redis until subscribed again');
    }
    this.lost = true;
    // After an 'error' on a connection that stays up, subscribe again at once.
    if (event === 'error') this.tick();
  }

  private clear(): void {
    this.epoch += 1;
    this.records.clear();
    this.grants.clear();
  }
}
