import { Injectable, type BeforeApplicationShutdown } from '@nestjs/common';

export type ReadinessCheck = () => Promise<unknown> | unknown;

export interface ReadinessReport {
  ready: boolean;
  checks: Record<string, 'ok' | string>;
}

/**
 * Dependencies a service needs to do its work. Modules register a check for what they own
 * (PostgreSQL, Redis, NATS); /readyz answers 200 only when all pass and the service is not
 * shutting down. Work taken from outside Nest (the NATS request server) registers its drain here,
 * run when the application closes, before the modules shut down (connections, pools).
 */
@Injectable()
export class ReadinessRegistry implements BeforeApplicationShutdown {
  private readonly checks = new Map<string, ReadinessCheck>();
  private readonly drains: Array<() => Promise<void>> = [];
  private draining = false;

  register(name: string, check: ReadinessCheck): void {
    this.checks.set(name, check);
  }

  /** `drain` stops taking work and finishes what is in flight; run once, when the application closes. */
  registerDrain(drain: () => Promise<void>): void {
    this.drains.push(drain);
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.draining = true;
    await Promise.all(this.drains.splice(0).map((drain) => drain()));
  }

  /** Called first on SIGTERM: the load balancer stops sending work before anything closes. */
  startDraining(): void {
    this.draining = true;
  }

  get isDraining(): boolean {
    return this.draining;
  }

  async report(timeoutMs = 2000): Promise<ReadinessReport> {
    const checks: Record<string, string> = {};
    await Promise.all(
      [...this.checks].map(async ([name, check]) => {
        let timer: NodeJS.Timeout | undefined;
        try {
          await Promise.race([
            Promise.resolve().then(check),
            new Promise((_, reject) => {
              timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
            }),
          ]);
          checks[name] = 'ok';
        } catch (error) {
          checks[name] = (error as Error).message || 'failed';
        } finally {
          clearTimeout(timer);
        }
      }),
    );
    if (this.draining) checks.shutdown = 'draining';
    return { ready: !this.draining && Object.values(checks).every((v) => v === 'ok'), checks };
  }
}
