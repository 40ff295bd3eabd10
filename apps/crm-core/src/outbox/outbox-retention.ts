import type { Logger } from 'pino';
import type { DataSource } from 'typeorm';
import { purgeOutboxStep, RETENTION_WINDOW } from './outbox-retention.repository';

/** Steps per run, so one run is bounded however large the backlog of old rows is. */
const STEPS_PER_RUN = 200;

export interface OutboxRetentionOptions {
  dataSource: DataSource;
  logger: Logger;
  retentionSeconds: number;
  /** Between runs; default one minute. */
  intervalMs?: number;
  window?: number;
}

/**
 * Deletes published outbox rows past their retention, in every crm-core replica, a bounded number
 * of steps per run (replicas running at once delete the same rows at worst: DELETE is idempotent).
 * Each run starts at the table's first row (found on the primary key at once), so a row that
 * committed after a run passed its sequence number (a transaction takes its number before it
 * commits) is found by the next run.
 */
export class OutboxRetention {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(private readonly options: OutboxRetentionOptions) {}

  start(): void {
    this.timer = setInterval(() => {
      this.running ??= this.run().then(
        () => (this.running = undefined),
        () => (this.running = undefined),
      );
    }, this.options.intervalMs ?? 60_000);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  /** One run: steps until the cursor stops or the run's bound; returns the rows deleted. */
  async run(): Promise<number> {
    let deleted = 0;
    let cursor = '0';
    try {
      for (let step = 0; step < STEPS_PER_RUN; step++) {
        const result = await purgeOutboxStep(
          this.options.dataSource.manager,
          cursor,
          this.options.window ?? RETENTION_WINDOW,
          this.options.retentionSeconds,
        );
        deleted += result.deleted;
        cursor = result.next;
        if (!result.advanced) break;
      }
      if (deleted > 0) this.options.logger.info({ rows: deleted }, 'outbox retention: removed published events past their retention');
    } catch (error) {
      this.options.logger.warn({ detail: (error as Error).message }, 'outbox retention: purge failed; trying again at the next run');
    }
    return deleted;
  }
}
