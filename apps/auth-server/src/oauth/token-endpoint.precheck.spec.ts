import { hashPassword } from '@crm/common';
import { createLogger } from '@crm/observability';
import type { NextFunction, Request, Response } from 'express';
import { AuthServerConfig } from '../config/auth-server.config';
import { PasswordHashing } from '../security/password-hashing';
import { verifiedSecretFor } from './client-secret.context';
import type { LoginThrottleService, ThrottleDecision } from './login-throttle.service';
import type { OAuthClientsRepository } from './oauth-clients.repository';
import { TokenEndpointPrecheck } from './token-endpoint.precheck';

/** What the pre-check answered: a status with headers and body, or a hand-over to oidc-provider. */
interface Outcome {
  status?: number;
  headers: Record<string, string>;
  body?: unknown;
  passedWithSecret?: string;
}

describe('TokenEndpointPrecheck', () => {
  const secret = 'the-right-secret-0123456789abcdefghijklmnop';
  let secretHash: string;
  let decision: ThrottleDecision;
  let events: string[];

  beforeAll(async () => {
    secretHash = await hashPassword(secret);
  });

  beforeEach(() => {
    decision = { allowed: true, ticket: { keys: ['k'] } };
    events = [];
  });

  function precheck(hashing: PasswordHashing): TokenEndpointPrecheck {
    const clients = {
      find: async (id: string) => (id === 'crm_app' ? { secret_hash: secretHash, token_endpoint_auth_method: 'client_secret_post' } : null),
    } as unknown as OAuthClientsRepository;
    const throttle = {
      attempt: async () => {
        events.push('attempt');
        return decision;
      },
      succeeded: async () => void events.push('succeeded'),
      abandoned: async () => void events.push('abandoned'),
    } as unknown as LoginThrottleService;
    return new TokenEndpointPrecheck(clients, throttle, hashing);
  }

  function hashing(concurrency = 4, queue = 4): PasswordHashing {
    return new PasswordHashing(
      Object.assign(new AuthServerConfig(), { AUTH_HASH_CONCURRENCY: concurrency, AUTH_HASH_QUEUE: queue }),
      createLogger('test', 'silent'),
    );
  }

  function run(target: TokenEndpointPrecheck, clientSecret: string): Promise<Outcome> {
    return new Promise((resolve, reject) => {
      const outcome: Outcome = { headers: {} };
      const res = {
        status(code: number) {
          outcome.status = code;
          return res;
        },
        setHeader(name: string, value: string) {
          outcome.headers[name.toLowerCase()] = value;
          return res;
        },
        json(body: unknown) {
          outcome.body = body;
          resolve(outcome);
          return res;
        },
      } as unknown as Response;
      const req = {
        body: { client_id: 'crm_app', client_secret: clientSecret },
        header: () => undefined,
        ip: '203.0.113.5',
      } as unknown as Request;
      const next: NextFunction = (error?: unknown) => {
        if (error) return reject(error);
        outcome.passedWithSecret = verifiedSecretFor('crm_app');
        resolve(outcome);
      };
      target.handler()(req, res, next);
    });
  }

  it('answers 503 with Retry-After, and gives the attempt back, when no hashing slot is free', async () => {
    const full = hashing(1, 0);
    let release!: () => void;
    const held = full['gate'].run(() => new Promise<void>((r) => (release = r)));
    const outcome = await run(precheck(full), secret);
    release();
    await held;
    expect(outcome).toMatchObject({ status: 503, headers: { 'retry-after': '1' }, body: { error: 'temporarily_unavailable' } });
    expect(events).toEqual(['attempt', 'abandoned']);
  });

  it('answers 429 with the throttle’s Retry-After without checking the secret', async () => {
    decision = { allowed: false, retryAfterSeconds: 321 };
    const outcome = await run(precheck(hashing()), secret);
    expect(outcome).toMatchObject({ status: 429, headers: { 'retry-after': '321' }, body: { error: 'invalid_client' } });
  });

  it('hands a right secret to oidc-provider and counts it as a success; a wrong one stays counted', async () => {
    const target = precheck(hashing());
    expect((await run(target, secret)).passedWithSecret).toBe(secret);
    expect(events).toEqual(['attempt', 'succeeded']);
    events = [];
    expect((await run(target, 'wrong')).passedWithSecret).not.toBe('wrong');
    expect(events).toEqual(['attempt']);
    events = [];
    // Verified a moment ago: neither scrypt nor the throttle again.
    expect((await run(target, secret)).passedWithSecret).toBe(secret);
    expect(events).toEqual([]);
  });
});
