import { AsyncLocalStorage } from 'node:async_hooks';
import type { DataSource, QueryRunner, ReplicationMode } from 'typeorm';
import type { Db } from '../common/sql';

interface OpenTransaction {
  readonly runner: QueryRunner;
  open: boolean;
}

const current = new AsyncLocalStorage<OpenTransaction>();
const joined = new WeakSet<DataSource>();

/**
 * Makes every statement and transaction of `dataSource` started inside {@link inRequestTransaction}
 * join that request's transaction: `createQueryRunner` (which TypeORM's `transaction`, `query` and
 * the repositories' `run` all go through) hands out the request's connection while its
 * transaction is open, so a service's `dataSource.transaction(...)` becomes a savepoint and its
 * reads see its own writes. Anywhere else (other requests, reads, background jobs) nothing changes.
 */
export function joinRequestTransactions(dataSource: DataSource): void {
  if (joined.has(dataSource)) return;
  joined.add(dataSource);
  const create = dataSource.createQueryRunner.bind(dataSource);
  dataSource.createQueryRunner = (mode?: ReplicationMode) => {
    const transaction = current.getStore();
    return transaction?.open ? transaction.runner : create(mode);
  };
}

/** Whether the code runs inside a request's transaction: its statements must go to the primary's connection it holds. */
export function inRequestTransactionNow(): boolean {
  return current.getStore()?.open === true;
}

export interface RequestTransactionOutcome<T> {
  result: T;
  /** COMMIT when true; ROLLBACK otherwise (an error reply, a replay, a reply that cannot be sent). */
  commit: boolean;
}

/**
 * Runs `body` in one transaction on one connection of `dataSource` (see joinRequestTransactions),
 * then commits or rolls back as `body` decides; a thrown error rolls back. The connection stops
 * being handed out before COMMIT, so nothing started by the request after it (a timer, a promise
 * left running) lands in a finished transaction.
 */
export async function inRequestTransaction<T>(dataSource: DataSource, body: (db: Db) => Promise<RequestTransactionOutcome<T>>): Promise<T> {
  joinRequestTransactions(dataSource);
  const outer = current.getStore();
  if (outer?.open) return (await body(outer.runner.manager)).result;
  const runner = dataSource.createQueryRunner('master');
  const release = runner.release.bind(runner);
  // Services release what they got from createQueryRunner; the request's connection stays held.
  runner.release = () => Promise.resolve();
  const transaction: OpenTransaction = { runner, open: true };
  try {
    await runner.startTransaction();
    const outcome = await current.run(transaction, () => body(runner.manager));
    transaction.open = false;
    if (outcome.commit) await runner.commitTransaction();
    else await runner.rollbackTransaction();
    return outcome.result;
  } catch (error) {
    transaction.open = false;
    if (runner.isTransactionActive) await runner.rollbackTransaction().catch(() => undefined);
    throw error;
  } finally {
    runner.release = release;
    await release();
  }
}
