import type { Logger } from 'pino';
import type { DeliveriesRepository } from './deliveries.repository';
import type { DeliverySender } from './delivery-sender';

/** Deliveries claimed per query. */
const CLAIM_BATCH = 200;

/**
 * Claims due deliveries (retries, first attempts that waited for room or for an older one of the
 * same record, redeliveries, claims freed from a dead replica) whenever woken — an outcome
 * written, a NOTIFY, freed claims — and on a short timer for retries coming due. One query at a
 * time; it loops while full batches come back and there is room.
 */
export class DuePoller {
  private wanted = false;
  private running: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private lastError = 0;

  constructor(
    private readonly repository: DeliveriesRepository,
    private readonly sender: DeliverySender,
    private readonly claimKey: () => number | null,
    private readonly logger: Logger,
  ) {}

  start(intervalMs: number): void {
    this.timer = setInterval(() => this.wake(), intervalMs);
    this.timer.unref();
    this.wake();
  }

  wake(): void {
    this.wanted = true;
    this.running ??= this.run().finally(() => (this.running = undefined));
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.wanted = false;
    await this.running;
  }

  private async run(): Promise<void> {
    while (this.wanted) {
      this.wanted = false;
      const key = this.claimKey();
      const limit = Math.min(this.sender.room, CLAIM_BATCH);
      if (key === null || limit <= 0) return;
      try {
        const claimed = await this.repository.claimDue(key, limit, this.sender.perWebhookClaim, this.sender.fullWebhooks());
        if (claimed.length > 0) this.sender.submit(claimed);
        if (claimed.length === limit) this.wanted = true;
      } catch (error) {
        if (Date.now() - this.lastError > 10_000)
          this.logger.warn({ detail: (error as Error).message }, 'webhook dispatcher: claiming due deliveries failed; retrying');
        this.lastError = Date.now();
        return;
      }
    }
  }
}
