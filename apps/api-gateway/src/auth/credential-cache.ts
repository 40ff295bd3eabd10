import { CacheKeys, type CredentialRecord } from '@crm/contracts';
import { isCluster, primariesOf, type RedisClient } from '@crm/service-kit';
import { Redis, type RedisOptions } from 'ioredis';
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
 * - On a Redis Cluster (REDIS_CLUSTER) a script's PUBLISH reaches its own node's subscribers at
 *   once and the other nodes' over the cluster bus, later and with no order against our PINGs.
 *   So the cache holds one subscriber connection per primary, to that primary (an announcement
 *   always comes from the primary that ran the write), and is live only while every primary the
 *   client knows has a subscribed, confirmed connection. A new primary (a failover) is not
 *   subscribed yet: the cache is bypassed until it is; a connection dropped, or a primary leaving
 *   the topology, is a loss like any other. What is left: between a primary being replaced while
 *   it still answers us (a partition between it and the cluster) and our client learning the new
 *   topology (at most REDIS slots refresh, 2 s), an announcement from the new primary comes only
 *   over the cluster bus (decisions.md "Redis Cluster").
 * The TTL (CREDENTIAL_CACHE_TTL_MS) is a safety net against a bug in this argument, not a part of it.
 */
export class CredentialCache {
  private readonly records: BoundedCache<string, CredentialRecord>;
  private readonly grants: BoundedCache<string, boolean>;
  private readonly channel: string;
  /** One subscriber connection per primary ("host:port"); one in all on a single server. */
  private readonly links = new Map<string, Link>();
  private started = false;
  /** Whether {@link links} holds a connection for every primary the client knows. */
  private covered = false;
  private heartbeat: NodeJS.Timeout | undefined;
  /** Bumps on every message and every loss: fills whose read started before are not kept. */
  private epoch = 0;
  private lost = false;
  private readonly onTopology = () => this.tick();

  constructor(
    private readonly redis: RedisClient,
    private readonly config: GatewayConfig,
    private readonly logger: Logger,
  ) {
    this.records = new BoundedCache(config.CREDENTIAL_CACHE_MAX_ENTRIES);
    this.grants = new BoundedCache(config.CREDENTIAL_CACHE_MAX_ENTRIES);
    this.channel = CacheKeys.invalidations(config.CRM_NAMESPACE);
  }

  /** Opens the subscriber connection(s) (none if the cache is turned off). */
  start(): void {
    if (this.config.CREDENTIAL_CACHE_MAX_ENTRIES === 0 || this.started) return;
    this.started = true;
    if (isCluster(this.redis)) for (const event of ['+node', '-node', 'refresh', 'ready']) this.redis.on(event, this.onTopology);
    this.heartbeat = setInterval(() => this.tick(), Math.max(1, Math.floor(this.config.CREDENTIAL_CACHE_MAX_LAG_MS / 3)));
    this.heartbeat.unref();
    this.tick();
  }

  async stop(): Promise<void> {
    clearInterval(this.heartbeat);
    this.started = false;
    if (isCluster(this.redis)) for (const event of ['+node', '-node', 'refresh', 'ready']) this.redis.off(event, this.onTopology);
    const links = [...this.links.values()];
    this.links.clear();
    this.covered = false;
    this.lose('stop');
    await Promise.all(links.map((link) => link.client.quit().catch(() => link.client.disconnect())));
  }

  /** The subscriber connections (for tests). */
  subscribers(): Redis[] {
    return [...this.links.values()].map((link) => link.client);
  }

  /** Whether entries may be served now (and fills kept). */
  isLive(now = Date.now()): boolean {
    if (!this.covered || this.links.size === 0) return false;
    for (const link of this.links.values()) if (link.subscribedOn !== link.connection || now >= link.confirmedUntil) return false;
    return true;
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

  /** Keeps one connection per primary, then subscribes or confirms each. */
  private tick(): void {
    if (!this.started) return;
    this.syncLinks();
    for (const link of this.links.values()) this.tickLink(link);
  }

  /**
   * Opens a connection to each primary the client knows and closes those to nodes that are no
   * longer primaries. A closed connection may have missed a message: a loss.
   */
  private syncLinks(): void {
    const redis = this.redis;
    if (!isCluster(redis)) {
      if (this.links.size === 0) this.open('server', () => redis.duplicate(SUBSCRIBER_OPTIONS(this.config.CRM_NAMESPACE)));
      this.covered = true;
      return;
    }
    const cluster = redis;
    const primaries = cluster.status === 'ready' ? primariesOf(cluster) : [];
    const wanted = new Map<string, RedisOptions>(primaries.map((node) => [`${node.options.host}:${node.options.port}`, node.options]));
    for (const [address, link] of this.links) {
      if (wanted.has(address)) continue;
      this.links.delete(address);
      link.client.removeAllListeners();
      link.client.on('error', () => undefined);
      link.client.disconnect();
      this.lose('topology');
    }
    for (const [address, options] of wanted) {
      if (this.links.has(address)) continue;
      this.open(
        address,
        () =>
          new Redis({
            ...cluster.options.redisOptions,
            host: options.host,
            port: options.port,
            retryStrategy: (times: number) => Math.min(times * 200, 2000),
            ...SUBSCRIBER_OPTIONS(this.config.CRM_NAMESPACE),
          }),
      );
    }
    this.covered = wanted.size > 0;
  }

  private open(address: string, connect: () => Redis): void {
    // Its own connection: a subscribed connection can run nothing else. Re-subscribing and
    // resending are ours to do, so a reconnect is always seen (see the class comment).
    const client = connect();
    const link: Link = { client, connection: 0, subscribedOn: -1, subscribing: false, confirmedUntil: 0 };
    this.links.set(address, link);
    client.on('message', (channel: string, message: string) => this.onMessage(channel, message));
    client.on('ready', () => this.tickLink(link));
    for (const event of ['error', 'close', 'reconnecting', 'end'])
      client.on(event, (error?: unknown) => {
        link.connection += 1;
        link.subscribedOn = -1;
        link.confirmedUntil = 0;
        this.lose(event, error);
        // After an 'error' on a connection that stays up, subscribe again at once.
        if (event === 'error') this.tickLink(link);
      });
  }

  /** Subscribes if the link's current connection is not subscribed yet, else confirms it with a PING. */
  private tickLink(link: Link): void {
    const subscriber = link.client;
    if (subscriber.status !== 'ready') return;
    const connection = link.connection;
    const sentAt = Date.now();
    if (link.subscribedOn === connection) {
      subscriber.ping().then(
        () => this.confirm(link, connection, sentAt),
        () => undefined, // an unanswered PING only lets the cache lapse
      );
      return;
    }
    if (link.subscribing) return;
    link.subscribing = true;
    subscriber
      .subscribe(this.channel)
      .then(
        () => {
          if (connection !== link.connection) return;
          link.subscribedOn = connection;
          this.confirm(link, connection, sentAt);
          if (this.lost && this.isLive()) {
            this.logger.info('credential cache: invalidations subscribed again; cache in use');
            this.lost = false;
          }
        },
        () => undefined, // the next tick tries again
      )
      .finally(() => (link.subscribing = false));
  }

  private confirm(link: Link, connection: number, sentAt: number): void {
    if (connection !== link.connection || link.subscribedOn !== connection) return;
    link.confirmedUntil = Math.max(link.confirmedUntil, sentAt + this.config.CREDENTIAL_CACHE_MAX_LAG_MS);
  }

  /** A subscriber may have missed messages: empty the cache; it is bypassed until every link is subscribed again. */
  private lose(event: string, error?: unknown): void {
    this.clear();
    if (!this.lost && event !== 'stop') {
      const detail = error instanceof Error ? error.message : undefined;
      this.logger.warn({ event, detail }, 'credential cache: invalidation channel lost; reading Redis until subscribed again');
    }
    this.lost = true;
  }

  private clear(): void {
    this.epoch += 1;
    this.records.clear();
    this.grants.clear();
  }
}

/** A subscriber connection and what is known of its subscription. */
interface Link {
  client: Redis;
  /** Bumps whenever the connection may have missed a message. */
  connection: number;
  /** The connection whose SUBSCRIBE was confirmed; -1: none. */
  subscribedOn: number;
  subscribing: boolean;
  /** Entries may be served until then (epoch ms): the last answered PING's send time + MAX_LAG. */
  confirmedUntil: number;
}

const SUBSCRIBER_OPTIONS = (namespace: string): Partial<RedisOptions> => ({
  connectionName: `${namespace}:auth-invalidations`,
  autoResubscribe: false,
  autoResendUnfulfilledCommands: false,
  enableAutoPipelining: false,
  enableOfflineQueue: false,
  lazyConnect: false,
});
