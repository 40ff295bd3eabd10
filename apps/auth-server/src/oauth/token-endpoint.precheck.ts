import { Injectable } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { createHash } from 'node:crypto';
import { throttleSource } from '../http/trusted-proxies';
import { HASHING_RETRY_AFTER_SECONDS, HashingBusyError, PasswordHashing } from '../security/password-hashing';
import { runWithVerifiedSecret } from './client-secret.context';
import { LoginThrottleService } from './login-throttle.service';
import { OAuthClientsRepository } from './oauth-clients.repository';

const VERIFIED_CACHE_MAX = 1000;
const VERIFIED_CACHE_MS = 5 * 60 * 1000;

/**
 * Runs before oidc-provider's token endpoint: verifies a confidential client's secret against its
 * scrypt hash (the provider only sees the secret when it matched), enforces the registered
 * authentication method (basic vs post), and throttles secret guessing per client and IP.
 */
@Injectable()
export class TokenEndpointPrecheck {
  /** sha256(client_id, secret, hash) of recently verified secrets: scrypt once, not per request. */
  private readonly verified = new Map<string, number>();

  constructor(
    private readonly clients: OAuthClientsRepository,
    private readonly throttle: LoginThrottleService,
    private readonly hashing: PasswordHashing,
  ) {}

  handler() {
    return (req: Request, res: Response, next: NextFunction): void => {
      this.check(req, res, next).catch(next);
    };
  }

  private async check(req: Request, res: Response, next: NextFunction): Promise<void> {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const basic = parseBasic(req.header('authorization'));
    const bodySecret = typeof body.client_secret === 'string' ? body.client_secret : undefined;
    const clientId = basic?.clientId ?? (typeof body.client_id === 'string' ? body.client_id : undefined);
    const secret = basic?.secret ?? bodySecret;
    if (!clientId || !secret || (basic && bodySecret)) return next();
    const client = await this.clients.find(clientId);
    if (!client?.secret_hash) return next();
    const used = basic ? 'client_secret_basic' : 'client_secret_post';
    if (client.token_endpoint_auth_method !== used) {
      res
        .status(401)
        .json({ error: 'invalid_client', error_description: `client must authenticate with ${client.token_endpoint_auth_method}` });
      return;
    }
    // A secret verified a moment ago needs neither scrypt nor throttling: it is the right one.
    const cacheKey = createHash('sha256').update(`${clientId}\0${secret}\0${client.secret_hash}`).digest('base64url');
    if ((this.verified.get(cacheKey) ?? 0) > Date.now()) {
      runWithVerifiedSecret(clientId, secret, next);
      return;
    }
    const decision = await this.throttle.attempt('client', clientId, throttleSource(req.ip));
    if (!decision.allowed) {
      res
        .status(429)
        .setHeader('Retry-After', String(decision.retryAfterSeconds))
        .json({ error: 'invalid_client', error_description: 'too many failed client authentications; retry later' });
      return;
    }
    let valid: boolean;
    try {
      valid = await this.hashing.verify(secret, client.secret_hash);
    } catch (error) {
      if (!(error instanceof HashingBusyError)) throw error;
      await this.throttle.abandoned(decision.ticket);
      res
        .status(503)
        .setHeader('Retry-After', String(HASHING_RETRY_AFTER_SECONDS))
        .json({ error: 'temporarily_unavailable', error_description: 'the server is busy; retry shortly' });
      return;
    }
    if (!valid) return next();
    await this.throttle.succeeded(decision.ticket);
    if (this.verified.size >= VERIFIED_CACHE_MAX) this.verified.clear();
    this.verified.set(cacheKey, Date.now() + VERIFIED_CACHE_MS);
    runWithVerifiedSecret(clientId, secret, next);
  }
}

function parseBasic(header: string | undefined): { clientId: string; secret: string } | null {
  const match = /^Basic\s+(\S+)$/i.exec(header ?? '');
  if (!match) return null;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const i = decoded.indexOf(':');
  if (i < 0) return null;
  try {
    return {
      clientId: decodeURIComponent(decoded.slice(0, i).replace(/\+/g, '%20')),
      secret: decodeURIComponent(decoded.slice(i + 1).replace(/\+/g, '%20')),
    };
  } catch {
    return null;
  }
}
