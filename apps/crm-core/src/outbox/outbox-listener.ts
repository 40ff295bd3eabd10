import pg from 'pg';
import type { Logger } from 'pino';
import { listenForOutboxEvents } from './outbox.repository';

/**
 * LISTENs for committed outbox events on a session of its own and calls `onEvent`; reconnects
 * after a lost connection (the relay's poll covers the gap).
 */
export class OutboxListener {
  private client: pg.Client | undefined;
  private stopped = false;
  private retry: NodeJS.Timeout | undefined;
  private listeningNow!: () => void;
  /** Resolves once the session LISTENs (the first time). */
  readonly listening = new Promise<void>((resolve) => (this.listeningNow = resolve));

  constructor(
    private readonly databaseUrl: string,
    private readonly logger: Logger,
    private readonly onEvent: () => void,
  ) {}

  start(): void {
    void this.connect();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retry);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    const client = new pg.Client({
      connectionString: this.databaseUrl,
      application_name: 'crm-core-outbox-listener',
      connectionTimeoutMillis: 5000,
      keepAlive: true,
    });
    const lost = () => {
      if (this.client !== client) return;
      this.client = undefined;
      if (!this.stopped) this.retry = setTimeout(() => void this.connect(), 1000);
    };
    client.on('notification', () => this.onEvent());
    client.on('error', lost);
    client.on('end', lost);
    try {
      await client.connect();
      await listenForOutboxEvents(client);
      if (this.stopped) {
        await client.end();
        return;
      }
      this.client = client;
      this.listeningNow();
      this.onEvent(); // anything committed while we were not listening
    } catch (error) {
      this.logger.debug({ detail: (error as Error).message }, 'outbox listener: cannot LISTEN yet; the relay polls meanwhile');
      await client.end().catch(() => undefined);
      if (!this.stopped) this.retry = setTimeout(() => void this.connect(), 1000);
    }
  }
}
