import type { DeliveriesRepository, WebhookTarget } from './deliveries.repository';

/** Entries are reloaded at least this often, whatever notifications said (a rotation's overlap ending, a missed NOTIFY). */
const MAX_AGE_MS = 30_000;
const MAX_ACCOUNTS = 50_000;

interface Entry {
  webhooks: WebhookTarget[];
  loadedAt: number;
}

/**
 * The active webhooks of accounts, kept in memory by the replica that ingests (one query saved per
 * batch, on the latency path). A trigger NOTIFYs every change of a webhook row with its account
 * (`webhooks_changed`), which drops that account's entry; a load that raced with a change is not
 * kept. Without a replica session (notifications may have been missed) everything is dropped.
 */
export class WebhookCache {
  private readonly entries = new Map<string, Entry>();
  private readonly generations = new Map<string, number>();
  private epoch = 0;

  constructor(private readonly repository: DeliveriesRepository) {}

  async activeWebhooksOf(accountIds: string[]): Promise<Map<string, WebhookTarget[]>> {
    const result = new Map<string, WebhookTarget[]>();
    const missing: string[] = [];
    const now = Date.now();
    for (const id of accountIds) {
      const entry = this.entries.get(id);
      if (entry && now - entry.loadedAt < MAX_AGE_MS) result.set(id, entry.webhooks);
      else missing.push(id);
    }
    if (missing.length === 0) return result;
    const epoch = this.epoch;
    const generations = new Map(missing.map((id) => [id, this.generations.get(id) ?? 0]));
    const loaded = await this.repository.activeWebhooksOf(missing);
    const byAccount = new Map<string, WebhookTarget[]>(missing.map((id) => [id, []]));
    for (const w of loaded) byAccount.get(w.account_id)?.push(w);
    if (this.entries.size + missing.length > MAX_ACCOUNTS) this.entries.clear();
    for (const [id, webhooks] of byAccount) {
      result.set(id, webhooks);
      if (epoch === this.epoch && generations.get(id) === (this.generations.get(id) ?? 0))
        this.entries.set(id, { webhooks, loadedAt: now });
    }
    return result;
  }

  /** A webhook of this account changed. */
  invalidate(accountId: string): void {
    this.entries.delete(accountId);
    this.generations.set(accountId, (this.generations.get(accountId) ?? 0) + 1);
    if (this.generations.size > MAX_ACCOUNTS) {
      this.generations.clear();
      this.epoch += 1;
    }
  }

  clear(): void {
    this.entries.clear();
    this.epoch += 1;
  }
}
