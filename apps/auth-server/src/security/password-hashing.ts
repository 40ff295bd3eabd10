import { Inject, Injectable } from '@nestjs/common';
import { hashPassword, verifyPassword } from '@crm/common';
import { ApiError, ErrorName } from '@crm/contracts';
import { LOGGER } from '@crm/service-kit';
import type { Logger } from 'pino';
import { AuthServerConfig } from '../config/auth-server.config';

/** Seconds a caller refused for lack of hashing capacity is asked to wait (Retry-After). */
export const HASHING_RETRY_AFTER_SECONDS = 1;

/** Every hashing slot and queue place is taken: answered 503 with Retry-After. */
export class HashingBusyError extends ApiError {
  constructor() {
    super(ErrorName.ServiceUnavailable, 'The server is busy checking passwords; retry in a second.');
  }
}

/**
 * At most `concurrency` tasks at once and `queue` waiting; any further task is refused at once
 * (HashingBusyError) rather than queued without bound. A finished task hands its slot to the
 * first waiter.
 */
export class BoundedGate {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    readonly concurrency: number,
    readonly queue: number,
  ) {}

  get running(): number {
    return this.active;
  }

  get queued(): number {
    return this.waiting.length;
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active < this.concurrency) this.active += 1;
    else if (this.waiting.length < this.queue) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else throw new HashingBusyError();
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.active -= 1;
    }
  }
}

/**
 * The auth-server's only way to compute scrypt password and client-secret hashes. Each costs
 * ~32 MiB and tens of milliseconds of a libuv thread, so the process runs a bounded number at a
 * time (AUTH_HASH_CONCURRENCY, AUTH_HASH_QUEUE); beyond that the caller gets 503 + Retry-After
 * instead of an unbounded queue that would starve every other request.
 */
@Injectable()
export class PasswordHashing {
  private readonly gate: BoundedGate;
  private lastWarnedAt = 0;

  constructor(
    config: AuthServerConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.gate = new BoundedGate(config.AUTH_HASH_CONCURRENCY, config.AUTH_HASH_QUEUE);
  }

  verify(password: string, stored: string): Promise<boolean> {
    return this.guarded(() => verifyPassword(password, stored));
  }

  hash(password: string): Promise<string> {
    return this.guarded(() => hashPassword(password));
  }

  private async guarded<T>(task: () => Promise<T>): Promise<T> {
    try {
      return await this.gate.run(task);
    } catch (error) {
      // One line per second at most: a flood must not turn into a log flood.
      if (error instanceof HashingBusyError && Date.now() - this.lastWarnedAt >= 1000) {
        this.lastWarnedAt = Date.now();
        this.logger.warn({ running: this.gate.running, queued: this.gate.queued }, 'password hashing at capacity; requests refused');
      }
      throw error;
    }
  }
}
