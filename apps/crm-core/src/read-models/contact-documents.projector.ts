import type { Logger } from 'pino';
import type { DataSource } from 'typeorm';
import type { Db } from '../common/sql';
import type { ContactDocumentMetrics } from './contact-documents.metrics';
import { advanceSweep, lockSweep, refreshContactDocuments, sweepBatch, takeQueuedContacts } from './contact-documents.repository';

export interface ContactDocumentProjectorOptions {
  dataSource: DataSource;
  logger: Logger;
  /** Between runs when there was nothing to do; default 200 ms. */
  intervalMs?: number;
  /** Contacts per step; default 200. */
  batch?: number;
  /** Steps per run, so that one run is bounded; default 50. */
  stepsPerRun?: number;
  metrics?: ContactDocumentMetrics;
}

/**
 * Renders contact documents (decisions.md "Contact documents") in every crm-core replica: the
 * contacts the triggers queued (inserted, or changed in what their document shows) and the sweeps
 * of accounts whose epoch moved (a status, lead source or tag renamed, a field definition changed).
 * Each step is one transaction: what it takes off the queue (or a sweep's place) is put back if it
 * fails. Replicas take different rows (SKIP LOCKED). Until a document is rendered, reads render
 * the contact from its row as they did before documents existed: a document is an optimization,
 * never the only way to a contact.
 */
export class ContactDocumentProjector {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;
  private stopped = false;

  constructor(private readonly options: ContactDocumentProjectorOptions) {}

  start(): void {
    const tick = () => {
      if (this.stopped) return;
      this.running = this.run().then(
        (busy) => this.schedule(tick, busy),
        () => this.schedule(tick, false),
      );
    };
    this.schedule(tick, false);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  /** Steps until there is nothing left (or the run's bound); returns the documents stored. */
  async runOnce(): Promise<number> {
    return (await this.steps()).stored;
  }

  /** {@link runOnce}, and whether it stopped at its bound with work left. */
  private async steps(): Promise<{ stored: number; more: boolean }> {
    let stored = 0;
    for (let step = 0; step < (this.options.stepsPerRun ?? 50); step++) {
      const result = await this.step();
      stored += result.stored;
      this.options.metrics?.rendered.inc(result.stored);
      if (!result.more) return { stored, more: false };
    }
    return { stored, more: true };
  }

  private schedule(tick: () => void, busy: boolean): void {
    if (this.stopped) return;
    // Straight on while there is work (each step yields to requests at every statement).
    this.timer = setTimeout(tick, busy ? 0 : (this.options.intervalMs ?? 200));
    this.timer.unref();
  }

  /** One run; true when it stopped at its bound with work left. */
  private async run(): Promise<boolean> {
    try {
      const before = Date.now();
      const { stored, more } = await this.steps();
      if (stored > 0) this.options.logger.debug({ documents: stored, ms: Date.now() - before }, 'contact documents rendered');
      return more;
    } catch (error) {
      this.options.metrics?.failures.inc();
      this.options.logger.warn({ detail: (error as Error).message }, 'contact documents: a step failed; trying again at the next run');
      return false;
    }
  }

  /** One step: a batch of queued contacts, else a batch of a sweep. */
  private step(): Promise<{ stored: number; more: boolean }> {
    const batch = this.options.batch ?? 200;
    return this.options.dataSource.transaction(async (tx) => {
      const queued = await takeQueuedContacts(tx, batch);
      if (queued.length > 0) return { stored: await this.render(tx, queued), more: true };
      const sweep = await lockSweep(tx);
      if (!sweep) return { stored: 0, more: false };
      const contacts = await sweepBatch(tx, sweep, batch);
      const stored = await refreshContactDocuments(
        tx,
        sweep.account_id,
        contacts.map((c) => c.id),
      );
      await advanceSweep(tx, sweep, contacts.length === batch ? contacts.at(-1) : undefined);
      return { stored, more: true };
    });
  }

  private async render(tx: Db, queued: Array<{ contact_id: string; account_id: string }>): Promise<number> {
    const byAccount = new Map<string, string[]>();
    for (const { contact_id, account_id } of queued) {
      const ids = byAccount.get(account_id);
      if (ids) ids.push(contact_id);
      else byAccount.set(account_id, [contact_id]);
    }
    let stored = 0;
    for (const [accountId, ids] of byAccount) stored += await refreshContactDocuments(tx, accountId, ids);
    return stored;
  }
}
