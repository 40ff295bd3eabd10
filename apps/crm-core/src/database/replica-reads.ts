import { AsyncLocalStorage } from 'node:async_hooks';
import { performance } from 'node:perf_hooks';
import {
  API_ROUTES,
  COMMIT_LSN_FIELD,
  executedByCrmCore,
  formatPgLsn,
  parsePgLsn,
  READ_FROM_PRIMARY,
  type RpcReply,
  type RpcRequest,
} from '@crm/contracts';
import { dataSourceOptions, registerPoolMetrics } from '@crm/database';
import { currentDeadline } from '@crm/observability';
import type { Logger } from 'pino';
import { withStatementTimeout } from '../common/sql/statement-timeout';
import {
  commitReturningInsertPosition,
  primaryInsertPosition,
  primaryWalPosition,
  replicaReplayPosition,
} from './wal-positions.repository';
import pg from 'pg';
import { Counter, Gauge, type Registry } from 'prom-client';
import { QueryFailedError, type DataSource, type QueryRunner, type ReplicationMode } from 'typeorm';

/**
 * Reads from crm-core's PostgreSQL streaming replica (docs/decisions.md "Reads from a replica").
 *
 * - A read request (a GET route's subject) carries `read_after`, the highest commit position of
 *   its user's and account's recent writes (the gateway keeps them). Its statements outside a
 *   transaction run on the replica when the replica has replayed at least that far and lags less
 *   than REPLICA_MAX_LAG_MS, else on the primary; decided once per request, at its first statement.
 * - A write request (any other route's subject) answers with `commit_lsn`: the primary's WAL
 *   insert position read right after its COMMIT, in the COMMIT's own round trip.
 * - Positions are polled every REPLICA_POLL_MS on two dedicated connections: the primary's
 *   pg_current_wal_lsn() with the time just before asking, and the replica's
 *   pg_last_wal_replay_lsn(). The replica's lag is the age of the newest primary sample it has
 *   replayed.
 * - Anything wrong with the replica (down, unreachable, slow to answer, an error) sends reads to
 *   the primary; a statement that fails on the replica runs again on the primary.
 */
export interface ReplicaReadsOptions {
  /** The primary's DataSource (crm-core's). */
  primary: DataSource;
  primaryUrl: string;
  /** Unset: every read on the primary, nothing polled. */
  replicaUrl?: string;
  maxLagMs: number;
  pollMs: number;
  timeoutMs: number;
  poolSize: number;
  registry: Registry;
  logger: Logger;
}

/** Why a read went where it went (the `reason` label of crm_db_reads_total). */
export type ReadRoute =
  | { target: 'replica'; reason: 'replayed' }
  | { target: 'primary'; reason: 'no_replica' | 'asked_primary' | 'replica_down' | 'lagging' | 'behind_write' | 'replica_failed' };

interface PgClient {
  query(config: { name?: string; text: string; values: unknown[] }): Promise<{ rows: unknown[]; rowCount: number | null }>;
}

/** A read request: where its statements go once decided. */
interface ReadContext {
  kind: 'read';
  /** The position its data must include; undefined: the primary only. */
  after: bigint | undefined;
  route?: ReadRoute;
}

/** A write request: the highest commit position seen, and whether a statement ran after it outside a transaction. */
interface WriteContext {
  kind: 'write';
  lsn?: bigint;
  /** A statement committed on its own (autocommit) since the last captured COMMIT, or before any. */
  unsettled: boolean;
}

const requests = new AsyncLocalStorage<ReadContext | WriteContext>();

/** The running instance (one per process); statements find it through {@link readOnReplica}. */
let active: ReplicaReads | undefined;

/** A primary sample: its WAL write position, and the (monotonic) time just before it was asked for. */
interface Sample {
  lsn: bigint;
  at: number;
}

const READ_SUBJECTS: ReadonlySet<string> = new Set<string>(
  API_ROUTES.filter((r) => r.method === 'GET' && executedByCrmCore(r.subject)).map((r) => r.subject),
);
const WRITE_SUBJECTS: ReadonlySet<string> = new Set<string>(
  API_ROUTES.filter((r) => r.method !== 'GET' && executedByCrmCore(r.subject)).map((r) => r.subject),
);

export class ReplicaReads {
  private pool: pg.Pool | undefined;
  private primaryClient: pg.Client | undefined;
  private replicaClient: pg.Client | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  /** Primary samples, oldest first, covering a little more than the lag bound. */
  private readonly samples: Sample[] = [];
  /** The replica's replay position at the last accepted poll (undefined: unknown, so unusable). */
  private replayed: bigint | undefined;
  /** The time of the newest primary sample at or below {@link replayed}: everything committed before it is on the replica. */
  private coveredAt = -Infinity;
  /** Polls are numbered; one started at or before {@link invalidatedAt} is not trusted (see onNewReplicaConnection). */
  private pollNumber = 0;
  private invalidatedAt = 0;
  private lastWarning = 0;
  private readonly reads: Counter<'target' | 'reason'>;
  private readonly lag: Gauge;

  constructor(private readonly options: ReplicaReadsOptions) {
    this.reads = new Counter({
      name: 'crm_db_reads_total',
      help: 'Read requests by the PostgreSQL server that answered them (replica or primary) and why (docs/decisions.md "Reads from a replica")',
      labelNames: ['target', 'reason'],
      registers: [options.registry],
    });
    this.lag = new Gauge({
      name: 'crm_db_replica_lag_seconds',
      help: "The replica's lag: age of the newest primary WAL sample it has replayed (at least the sampling interval; -1 while unknown)",
      registers: [options.registry],
    });
    this.lag.set(-1);
  }

  /** REPLICA_TIMEOUT_MS: the shortest wait for a replica statement. */
  get timeoutMs(): number {
    return this.options.timeoutMs;
  }

  get configured(): boolean {
    return this.options.replicaUrl !== undefined;
  }

  /** Opens the replica's pool and starts polling; never fails for the replica's sake (reads stay on the primary). */
  start(): void {
    if (!this.options.replicaUrl) return;
    // One router per process: statements find it through readOnReplica.
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    active = this;
    captureCommitPositions(this.options.primary);
    const base = dataSourceOptions({
      url: this.options.replicaUrl,
      schema: 'crm',
      entities: [],
      migrations: [],
      poolSize: this.options.poolSize,
      applicationName: 'crm-core',
      planCacheMode: 'force_generic_plan',
    }) as { extra: Record<string, unknown> };
    this.pool = new pg.Pool({
      connectionString: this.options.replicaUrl,
      application_name: 'crm-core',
      max: this.options.poolSize,
      ...base.extra,
      connectionTimeoutMillis: this.options.timeoutMs,
    });
    this.pool.on('error', (error) => this.warn(error, 'an idle replica connection failed'));
    this.pool.on('connect', () => this.onNewReplicaConnection());
    registerPoolMetrics(this.options.registry, 'crm-replica', this.pool);
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (active === this) active = undefined;
    clearTimeout(this.timer);
    await Promise.allSettled([this.primaryClient?.end(), this.replicaClient?.end(), this.pool?.end()]);
  }

  /**
   * NatsRpcServer's `around` (composed with the idempotency boundary inside it): a read route's
   * handler runs in a read context, a write route's in a write context whose reply gets `commit_lsn`.
   */
  readonly around = async (subject: string, request: unknown, invoke: () => Promise<RpcReply>): Promise<RpcReply> => {
    if (!this.configured) return invoke();
    if (READ_SUBJECTS.has(subject)) {
      const after = (request as RpcRequest | undefined)?.read_after;
      const context: ReadContext = { kind: 'read', after: after === READ_FROM_PRIMARY ? undefined : parsePgLsn(after) };
      return requests.run(context, invoke);
    }
    if (!WRITE_SUBJECTS.has(subject)) return invoke();
    const context: WriteContext = { kind: 'write', unsettled: false };
    const reply = await requests.run(context, invoke);
    // An error reply wrote nothing (its request transaction rolled back): nothing to read after.
    if (!reply.ok) return reply;
    let lsn = context.lsn;
    // A statement committed after the last captured COMMIT (or on its own), or a repeat answered
    // from an earlier write's record: the primary's position now covers it.
    if (context.unsettled || ((reply as { replayed?: boolean }).replayed && lsn === undefined)) {
      const now = await this.primaryInsertPosition().catch(() => undefined);
      if (now !== undefined && (lsn === undefined || now > lsn)) lsn = now;
    }
    return lsn === undefined ? reply : { ...reply, [COMMIT_LSN_FIELD]: formatPgLsn(lsn) };
  };

  /** Where the current read request's statements go (decided at its first statement); undefined outside a read request. */
  routeOfCurrentRead(): ReadRoute | undefined {
    const context = requests.getStore();
    if (context?.kind !== 'read') return undefined;
    if (!context.route) {
      context.route = this.decide(context.after);
      this.reads.inc(context.route);
    }
    return context.route;
  }

  /** The replica's pool when the current read may use it. */
  replicaForCurrentRead(): pg.Pool | undefined {
    return this.routeOfCurrentRead()?.target === 'replica' ? this.pool : undefined;
  }

  /** Whether a replay position is known (none since a new connection to the replica opened, until a poll started after it answers). */
  trustsReplica(): boolean {
    return this.replayed !== undefined;
  }

  /** The replica is no longer trusted for the current read: its other statements go to the primary. */
  leaveReplica(): void {
    const context = requests.getStore();
    if (context?.kind === 'read' && context.route?.target === 'replica') {
      context.route = { target: 'primary', reason: 'replica_down' };
      this.reads.inc(context.route);
    }
  }

  /** A statement failed on the replica: this request's other statements, and the retry, go to the primary. */
  failedOnReplica(error: unknown): void {
    const context = requests.getStore();
    if (context?.kind === 'read') {
      context.route = { target: 'primary', reason: 'replica_failed' };
      this.reads.inc(context.route);
    }
    if (isConnectionError(error)) this.forgetReplay();
    this.warn(error, 'a read failed on the replica; it runs on the primary');
  }

  /** The replica's state as the router sees it (tests, logs). */
  status(): { replayed: string | undefined; lagMs: number } {
    return { replayed: this.replayed === undefined ? undefined : formatPgLsn(this.replayed), lagMs: performance.now() - this.coveredAt };
  }

  private decide(after: bigint | undefined): ReadRoute {
    if (!this.pool) return { target: 'primary', reason: 'no_replica' };
    if (after === undefined) return { target: 'primary', reason: 'asked_primary' };
    if (this.replayed === undefined) return { target: 'primary', reason: 'replica_down' };
    if (performance.now() - this.coveredAt > this.options.maxLagMs) return { target: 'primary', reason: 'lagging' };
    if (after > this.replayed) return { target: 'primary', reason: 'behind_write' };
    return { target: 'replica', reason: 'replayed' };
  }

  /**
   * A new connection to the replica may reach a server that restarted (and replayed less than
   * before) since the last poll: no poll started before now is trusted, so reads go to the primary
   * until the next one.
   */
  private onNewReplicaConnection(): void {
    this.invalidatedAt = this.pollNumber;
    this.forgetReplay();
  }

  private forgetReplay(): void {
    this.replayed = undefined;
    this.coveredAt = -Infinity;
    this.lag.set(-1);
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.poll().finally(() => this.schedule(this.options.pollMs)), delayMs);
    this.timer.unref();
  }

  /** One round: a primary sample and the replica's replay position, in parallel. */
  private async poll(): Promise<void> {
    this.pollNumber += 1;
    const number = this.pollNumber;
    const [sample, replayed] = await Promise.all([this.samplePrimary(), this.pollReplica()]);
    if (sample) {
      this.samples.push(sample);
      // Keep what the lag bound can use, plus a margin: an older sample only proves a larger lag.
      const horizon = performance.now() - 2 * this.options.maxLagMs - 10 * this.options.pollMs;
      while (this.samples.length > 2 && this.samples[0].at < horizon) this.samples.shift();
    }
    if (replayed === undefined || number <= this.invalidatedAt) {
      if (replayed === undefined) this.forgetReplay();
      return;
    }
    this.replayed = replayed;
    let covered = -Infinity;
    for (let i = this.samples.length - 1; i >= 0; i -= 1)
      if (this.samples[i].lsn <= replayed) {
        covered = this.samples[i].at;
        break;
      }
    this.coveredAt = covered;
    const oldest = this.samples[0]?.at ?? performance.now();
    this.lag.set((performance.now() - (Number.isFinite(covered) ? covered : oldest)) / 1000);
  }

  private async samplePrimary(): Promise<Sample | undefined> {
    const at = performance.now();
    try {
      this.primaryClient ??= await this.connect(this.options.primaryUrl, () => (this.primaryClient = undefined));
      const lsn = parsePgLsn(await primaryWalPosition(this.primaryClient));
      return lsn === undefined ? undefined : { lsn, at };
    } catch (error) {
      this.drop('primaryClient');
      this.warn(error, 'sampling the primary WAL position failed');
      return undefined;
    }
  }

  private async pollReplica(): Promise<bigint | undefined> {
    try {
      this.replicaClient ??= await this.connect(this.options.replicaUrl!, () => (this.replicaClient = undefined));
      // null: not a standby (or not in recovery): nothing says it has the primary's data.
      return parsePgLsn((await replicaReplayPosition(this.replicaClient)) ?? undefined);
    } catch (error) {
      this.drop('replicaClient');
      this.warn(error, 'the replica does not answer: reads go to the primary');
      return undefined;
    }
  }

  /** A dedicated connection; `lost` forgets it when it fails, so the next poll connects again. */
  private async connect(url: string, lost: () => void): Promise<pg.Client> {
    const client = new pg.Client({
      connectionString: url,
      application_name: 'crm-core-replica-monitor',
      connectionTimeoutMillis: this.options.timeoutMs,
      query_timeout: this.options.timeoutMs,
    });
    client.on('error', lost);
    client.on('end', lost);
    await client.connect();
    return client;
  }

  private drop(which: 'primaryClient' | 'replicaClient'): void {
    const client = this[which];
    this[which] = undefined;
    client?.end().catch(() => undefined);
  }

  /** The primary's WAL insert position now (after everything this request committed). */
  private async primaryInsertPosition(): Promise<bigint | undefined> {
    return parsePgLsn(await primaryInsertPosition(this.options.primary));
  }

  private warn(error: unknown, message: string): void {
    const now = Date.now();
    if (now - this.lastWarning < 10_000) return;
    this.lastWarning = now;
    this.options.logger.warn({ detail: (error as Error)?.message }, message);
  }
}

/**
 * Runs `query` on the replica when the current request is a read that may use it; undefined when
 * it goes to the primary, or failed on the replica (then the caller runs it on the primary).
 */
export async function readOnReplica<R>(query: (client: PgClient) => Promise<R>): Promise<R | undefined> {
  const pool = active?.replicaForCurrentRead();
  if (!pool) return undefined;
  let client: pg.PoolClient | undefined;
  try {
    client = await pool.connect();
    // A connection opened just now may reach a restarted standby: it made the router forget the
    // replay position (onNewReplicaConnection), so this statement goes to the primary.
    if (!active?.trustsReplica()) {
      client.release();
      active?.leaveReplica();
      return undefined;
    }
    // An unreachable replica never answers (no error comes back): the statement waits for half of
    // what its caller still waits at most, so the primary gets the other half.
    const deadline = currentDeadline();
    const budget = Math.max(active.timeoutMs, deadline === undefined ? 30_000 : Math.floor((deadline - Date.now()) / 2));
    const result = await query({ query: withStatementTimeout(client, budget) });
    client.release();
    return result;
  } catch (error) {
    // A connection that failed is not given back for reuse.
    client?.release(isConnectionError(error) ? (error as Error) : undefined);
    active?.failedOnReplica(error);
    return undefined;
  }
}

/** A statement runs on the primary outside a transaction: in a write request, it commits on its own. */
export function noteAutocommit(): void {
  const context = requests.getStore();
  if (context?.kind === 'write') context.unsettled = true;
}

const captured = new WeakSet<DataSource>();

/**
 * Makes the outermost COMMIT of a write request, on any query runner of `dataSource`, read the
 * primary's WAL insert position in the same round trip (`COMMIT; SELECT pg_current_wal_insert_lsn()`,
 * one simple query): past the commit record, since it is read after the COMMIT returned. A
 * statement run outside a transaction marks the request as unsettled (see ReplicaReads.around).
 */
export function captureCommitPositions(dataSource: DataSource): void {
  if (captured.has(dataSource)) return;
  captured.add(dataSource);
  const create = dataSource.createQueryRunner.bind(dataSource);
  dataSource.createQueryRunner = (mode?: ReplicationMode) => {
    const runner = create(mode);
    const context = requests.getStore();
    return context?.kind === 'write' ? withCommitPosition(runner, context) : runner;
  };
}

const positioned = new WeakSet<QueryRunner>();

function withCommitPosition(runner: QueryRunner, context: WriteContext): QueryRunner {
  // A request's own runner is handed out again for each statement (request-transaction.ts): wrapped once.
  if (positioned.has(runner)) return runner;
  positioned.add(runner);
  const query = runner.query.bind(runner) as (...args: unknown[]) => Promise<unknown>;
  runner.query = (async (text: string, parameters?: unknown[], structured?: boolean) => {
    if (text !== 'COMMIT' || parameters !== undefined) {
      if (!runner.isTransactionActive) context.unsettled = true;
      return query(text, parameters, structured);
    }
    const client = (await runner.connect()) as { query(text: string): Promise<Array<{ rows: Array<{ lsn: string }> }>> };
    let position: string | undefined;
    try {
      position = await commitReturningInsertPosition(client);
    } catch (error) {
      throw new QueryFailedError('COMMIT', undefined, error as Error);
    }
    const lsn = parsePgLsn(position);
    if (lsn !== undefined && (context.lsn === undefined || lsn > context.lsn)) context.lsn = lsn;
    context.unsettled = false;
    return undefined;
  }) as QueryRunner['query'];
  return runner;
}

/** Errors of the connection rather than of the statement: the server is gone, unreachable or shutting down. */
function isConnectionError(error: unknown): boolean {
  const code = (error as { code?: string } | undefined)?.code;
  if (typeof code === 'string' && /^(08|57P)/.test(code)) return true;
  const message = (error as Error | undefined)?.message ?? '';
  return /ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|timeout|Connection terminated|not queryable/i.test(message);
}

type Around = (subject: string, request: unknown, invoke: () => Promise<RpcReply>) => Promise<RpcReply>;

/** `inner` (the idempotency boundary, whose transaction commits inside) wrapped by the replica router's `around`. */
export function withReplicaReads(reads: ReplicaReads, inner: Around): Around {
  return (subject, request, invoke) => reads.around(subject, request, () => inner(subject, request, invoke));
}
