import { randomBytes } from 'node:crypto';

/** One failed attempt the careful client saw (it then retried with the same key). */
export interface SeenError {
  at: number;
  key: string;
  /** "5xx 503", "429", "network: ..." */
  kind: string;
}

export interface WriteLoadOptions {
  /** The API's base URL (the gateway front), e.g. http://127.0.0.1:1234/api/v3 */
  apiUrl: string;
  authorization: string;
  contactId: string;
  /** Prefix of every Idempotency-Key (and of each note's text), one per drill. */
  tag: string;
  /** Writes started per second (default 50). */
  perSecond?: number;
  /** Writes in flight at most (a careful client's pool; below the gateway's RATE_LIMIT_CONCURRENT of 20). */
  maxInFlight?: number;
  /** How long one write is retried before the client gives up on it (default 90 s). */
  giveUpAfterMs?: number;
}

const RETRYABLE = new Set([408, 409, 425, 429]);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A steady write load through the API as a careful client makes it: POST /notes, each with its
 * own Idempotency-Key (also in the note's text, so the records can be counted per key), retried
 * with the same key on a 5xx, a network error, 408, 409 (still in progress), 425 and 429, with a
 * short backoff, until a 2xx. Every acknowledged write's key and note id is recorded, and every
 * failed attempt with its time.
 */
export class WriteLoad {
  readonly acknowledged = new Map<string, string>();
  readonly errors: SeenError[] = [];
  readonly refused: Array<{ key: string; status: number; body: string }> = [];
  readonly gaveUp: string[] = [];
  attempts = 0;
  private seq = 0;
  private inFlight = 0;
  private running = false;
  private timer: NodeJS.Timeout | undefined;
  private readonly pending = new Set<Promise<void>>();
  startedAt = 0;
  stoppedAt = 0;

  constructor(private readonly options: WriteLoadOptions) {}

  static keyPrefix(tag: string): string {
    return `${tag}-${randomBytes(3).toString('hex')}`;
  }

  start(): void {
    this.running = true;
    this.startedAt = Date.now();
    const every = 1000 / (this.options.perSecond ?? 50);
    const max = this.options.maxInFlight ?? 16;
    this.timer = setInterval(() => {
      if (!this.running || this.inFlight >= max) return;
      const key = `${this.options.tag}-${String(this.seq++).padStart(5, '0')}`;
      const write = this.write(key).finally(() => this.pending.delete(write));
      this.pending.add(write);
    }, every);
  }

  /** Stops starting writes and waits for those in flight (retried until acknowledged or given up). */
  async stop(): Promise<void> {
    this.running = false;
    clearInterval(this.timer);
    this.stoppedAt = Date.now();
    await Promise.all([...this.pending]);
  }

  get started(): number {
    return this.seq;
  }

  private async write(key: string): Promise<void> {
    this.inFlight += 1;
    const deadline = Date.now() + (this.options.giveUpAfterMs ?? 90_000);
    let backoff = 100;
    try {
      for (;;) {
        this.attempts += 1;
        try {
          const res = await fetch(`${this.options.apiUrl}/notes`, {
            method: 'POST',
            headers: {
              authorization: this.options.authorization,
              'content-type': 'application/json',
              'idempotency-key': key,
            },
            body: JSON.stringify({ contact_id: this.options.contactId, text: `load ${key}` }),
            signal: AbortSignal.timeout(30_000),
          });
          const text = await res.text();
          if (res.status === 201 || res.status === 200) {
            const id = (JSON.parse(text) as { data: { note: { id: string } } }).data.note.id;
            this.acknowledged.set(key, id);
            return;
          }
          if (res.status >= 500 || RETRYABLE.has(res.status)) {
            this.errors.push({ at: Date.now(), key, kind: `${res.status >= 500 ? '5xx ' : ''}${res.status}` });
          } else {
            this.refused.push({ key, status: res.status, body: text.slice(0, 300) });
            return;
          }
        } catch (error) {
          const cause = (error as { cause?: { code?: string; message?: string } }).cause;
          this.errors.push({ at: Date.now(), key, kind: `network: ${cause?.code ?? cause?.message ?? String(error)}` });
        }
        if (Date.now() > deadline) {
          this.gaveUp.push(key);
          return;
        }
        await sleep(backoff);
        backoff = Math.min(backoff * 2, 2000);
      }
    } finally {
      this.inFlight -= 1;
    }
  }
}

/**
 * Reads beside the writes (GET /contacts/{id}/notes?per_page=10, `perSecond` a second, at most 2 in
 * flight: with the writes' 16, the client stays 2 below the gateway's 20 per user): crm-core
 * answers lists from the PostgreSQL replica where it has one. Every failed read is recorded; a
 * read is not retried (the next one follows).
 */
export class ReadProbe {
  readonly errors: SeenError[] = [];
  reads = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly pending = new Set<Promise<void>>();

  constructor(private readonly options: { apiUrl: string; authorization: string; contactId: string; perSecond?: number }) {}

  start(): void {
    this.timer = setInterval(
      () => {
        if (this.pending.size >= 2) return;
        const read = this.read().finally(() => this.pending.delete(read));
        this.pending.add(read);
      },
      1000 / (this.options.perSecond ?? 5),
    );
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await Promise.all([...this.pending]);
  }

  private async read(): Promise<void> {
    this.reads += 1;
    const key = `read-${this.reads}`;
    try {
      const res = await fetch(`${this.options.apiUrl}/contacts/${this.options.contactId}/notes?per_page=10`, {
        headers: { authorization: this.options.authorization },
        signal: AbortSignal.timeout(30_000),
      });
      await res.arrayBuffer();
      if (res.status !== 200) this.errors.push({ at: Date.now(), key, kind: `read ${res.status}` });
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      this.errors.push({ at: Date.now(), key, kind: `read network: ${cause?.code ?? cause?.message ?? String(error)}` });
    }
  }
}
