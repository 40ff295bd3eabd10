import { Inject, Injectable } from '@nestjs/common';
import { LOGGER, REDIS } from '@crm/service-kit';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { AuthServerConfig } from '../config/auth-server.config';

const WINDOW_SECONDS = 15 * 60;
const LIMITS = { subject: 10, ip: 100 } as const;

/**
 * Slows brute force on logins and client secrets: after too many failures per subject (email or
 * client id) or per IP within 15 minutes, further attempts are refused until the window passes.
 * If Redis is down the check is skipped (logged): availability of sign-in over throttling.
 */
@Injectable()
export class LoginThrottleService {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly config: AuthServerConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  private keys(kind: string, subject: string, ip: string): [string, string] {
    const ns = this.config.CRM_NAMESPACE;
    return [`${ns}:auth:fail:${kind}:${subject.toLowerCase()}`, `${ns}:auth:fail:ip:${ip}`];
  }

  async isBlocked(kind: 'login' | 'client', subject: string, ip: string): Promise<boolean> {
    try {
      const [bySubject, byIp] = await this.redis.mget(...this.keys(kind, subject, ip));
      return Number(bySubject ?? 0) >= LIMITS.subject || Number(byIp ?? 0) >= LIMITS.ip;
    } catch (error) {
      this.logger.warn({ detail: (error as Error).message }, 'login throttle unavailable');
      return false;
    }
  }

  async recordFailure(kind: 'login' | 'client', subject: string, ip: string): Promise<void> {
    const [a, b] = this.keys(kind, subject, ip);
    await this.redis
      .multi()
      .incr(a)
      .expire(a, WINDOW_SECONDS, 'NX')
      .incr(b)
      .expire(b, WINDOW_SECONDS, 'NX')
      .exec()
      .catch(() => undefined);
  }

  async clear(kind: 'login' | 'client', subject: string, ip: string): Promise<void> {
    await this.redis.del(this.keys(kind, subject, ip)[0]).catch(() => undefined);
  }
}
