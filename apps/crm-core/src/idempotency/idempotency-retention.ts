import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { IDEMPOTENCY_RETENTION_HOURS } from '@crm/contracts';
import { LOGGER } from '@crm/service-kit';
import type { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { IdempotencyRepository } from './idempotency.repository';

/** Rows deleted per statement, and statements per run: one run is bounded however large the backlog. */
const BATCH = 1000;
const BATCHES_PER_RUN = 50;
const INTERVAL_MS = 60_000;

/**
 * Deletes Idempotency-Key rows older than 24 hours (IDEMPOTENCY_RETENTION_HOURS), in every
 * crm-core replica, at most BATCHES_PER_RUN statements of BATCH rows a minute (replicas running
 * at once delete the same rows at worst), like the outbox retention.
 */
@Injectable()
export class IdempotencyRetention implements OnApplicationBootstrap, OnApplicationShutdown {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;

  constructor(
    @Inject(DataSource) private readonly dataSource: DataSource,
    private readonly keys: IdempotencyRepository,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => {
      this.running ??= this.run().finally(() => (this.running = undefined));
    }, INTERVAL_MS);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  /** One run: batches until one deletes less than a batch or the run's bound; returns the rows deleted. */
  async run(retentionSeconds = IDEMPOTENCY_RETENTION_HOURS * 3600, batch = BATCH): Promise<number> {
    let deleted = 0;
    try {
      for (let step = 0; step < BATCHES_PER_RUN; step++) {
        const rows = await this.keys.purgeBatch(this.dataSource.manager, retentionSeconds, batch);
        deleted += rows;
        if (rows < batch) break;
      }
      if (deleted > 0) this.logger.info({ rows: deleted }, 'idempotency retention: removed keys past their 24 hours');
    } catch (error) {
      this.logger.warn({ detail: (error as Error).message }, 'idempotency retention: purge failed; trying again at the next run');
    }
    return deleted;
  }
}
