import { Controller, Get, Inject, Param, Post, Req, Res } from '@nestjs/common';
import { safeEqual } from '@crm/common';
import type { Request, Response } from 'express';
import { createHmac } from 'node:crypto';
import type Provider from 'oidc-provider';
import { AuthServerConfig } from '../config/auth-server.config';
import { throttleSource } from '../http/trusted-proxies';
import { IdentityRepository } from '../identity/identity.repository';
import { HASHING_RETRY_AFTER_SECONDS, HashingBusyError } from '../security/password-hashing';
import { LoginThrottleService } from './login-throttle.service';
import { OIDC_PROVIDER } from './oauth.tokens';
import type { OidcProviderHolder } from './oidc-provider.holder';
import { contentSecurityPolicy } from './security-headers';
import { TRUSTED_DEVICE_COOKIE, TRUSTED_DEVICE_PATH, TRUSTED_DEVICE_TTL_SECONDS, TrustedDevices } from './trusted-device';
import { renderConsentPage, renderLoginPage, renderOAuthErrorPage } from './views/pages';

type Details = Awaited<ReturnType<Provider['interactionDetails']>>;

/** The login and consent pages of the authorization flow (server-rendered, no external assets). */
@Controller('oauth/interaction')
export class InteractionController {
  private readonly devices: TrustedDevices;

  constructor(
    @Inject(OIDC_PROVIDER) private readonly holder: OidcProviderHolder,
    private readonly identity: IdentityRepository,
    private readonly throttle: LoginThrottleService,
    private readonly config: AuthServerConfig,
  ) {
    this.devices = new TrustedDevices(() => this.holder.cookieKey);
  }

  private get provider(): Provider {
    return this.holder.current;
  }

  @Get(':uid')
  async show(@Param('uid') uid: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const details = await this.details(req, res, uid);
    if (!details) return;
    const clientName = await this.clientName(details);
    if (details.prompt.name === 'login') {
      this.html(res, 200, renderLoginPage({ uid, csrf: await this.csrf(uid), clientName }), details);
      return;
    }
    this.html(
      res,
      200,
      renderConsentPage({
        uid,
        csrf: await this.csrf(uid),
        clientName,
        scopes: String(details.params.scope ?? '')
          .split(' ')
          .filter(Boolean),
      }),
      details,
    );
  }

  @Post(':uid/login')
  async login(@Param('uid') uid: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const details = await this.details(req, res, uid);
    if (!details || !(await this.checkCsrf(uid, req, res))) return;
    const email = String(req.body?.email ?? '').trim();
    const password = String(req.body?.password ?? '');
    const clientName = await this.clientName(details);
    const again = async (status: number, error: string, retryAfterSeconds?: number) => {
      if (retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(retryAfterSeconds));
      this.html(res, status, renderLoginPage({ uid, csrf: await this.csrf(uid), clientName, email, error }), details);
    };
    if (!email || !password) return again(400, 'Enter your email and password.');
    const decision = await this.throttle.attempt('login', email, throttleSource(req.ip), {
      trustedDevice: this.devices.trusts(req.headers.cookie, email),
    });
    if (!decision.allowed) {
      const minutes = Math.max(1, Math.ceil(decision.retryAfterSeconds / 60));
      return again(
        429,
        `Too many failed attempts. Wait ${minutes} minute${minutes === 1 ? '' : 's'} and try again.`,
        decision.retryAfterSeconds,
      );
    }
    let user: Awaited<ReturnType<IdentityRepository['verifyLogin']>>;
    try {
      user = await this.identity.verifyLogin(email, password);
    } catch (error) {
      if (!(error instanceof HashingBusyError)) throw error;
      await this.throttle.abandoned(decision.ticket);
      return again(503, 'The server is busy. Try again in a moment.', HASHING_RETRY_AFTER_SECONDS);
    }
    if (!user) return again(401, 'The email or password is not correct.');
    await this.throttle.succeeded(decision.ticket);
    res.cookie(TRUSTED_DEVICE_COOKIE, this.devices.issue(email), {
      httpOnly: true,
      sameSite: 'lax',
      secure: this.config.AUTH_ISSUER.startsWith('https:'),
      path: TRUSTED_DEVICE_PATH,
      maxAge: TRUSTED_DEVICE_TTL_SECONDS * 1000,
    });
    await this.provider.interactionFinished(req, res, { login: { accountId: user.id } }, { mergeWithLastSubmission: false });
  }

  @Post(':uid/confirm')
  async confirm(@Param('uid') uid: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const details = await this.details(req, res, uid);
    if (!details || !(await this.checkCsrf(uid, req, res))) return;
    if (details.prompt.name !== 'consent' || !details.session?.accountId) {
      this.html(res, 400, renderOAuthErrorPage('invalid_request', 'Sign in first.'));
      return;
    }
    const { Grant } = this.provider;
    const grant = details.grantId
      ? ((await Grant.find(details.grantId)) ??
        new Grant({ accountId: details.session.accountId, clientId: String(details.params.client_id) }))
      : new Grant({ accountId: details.session.accountId, clientId: String(details.params.client_id) });
    const missing = details.prompt.details as { missingOIDCScope?: string[]; missingResourceScopes?: Record<string, string[]> };
    if (missing.missingOIDCScope?.length) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
    for (const [resource, scopes] of Object.entries(missing.missingResourceScopes ?? {}))
      grant.addResourceScope(resource, scopes.join(' '));
    const grantId = await grant.save();
    await this.provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
  }

  @Post(':uid/abort')
  async abort(@Param('uid') uid: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const details = await this.details(req, res, uid);
    if (!details || !(await this.checkCsrf(uid, req, res))) return;
    await this.provider.interactionFinished(
      req,
      res,
      { error: 'access_denied', error_description: 'The user declined the request' },
      { mergeWithLastSubmission: false },
    );
  }

  private async details(req: Request, res: Response, uid: string): Promise<Details | null> {
    try {
      const details = await this.provider.interactionDetails(req, res);
      if (details.uid !== uid) throw new Error('uid mismatch');
      return details;
    } catch {
      this.html(
        res,
        400,
        renderOAuthErrorPage('invalid_request', 'This sign-in request has expired or is not valid. Start again from the application.'),
      );
      return null;
    }
  }

  private async clientName(details: Details): Promise<string> {
    const client = await this.provider.Client.find(String(details.params.client_id));
    return client?.clientName ?? String(details.params.client_id);
  }

  private async csrf(uid: string): Promise<string> {
    return createHmac('sha256', this.holder.cookieKey).update(`interaction:${uid}`).digest('base64url');
  }

  /** The form's token must be the one bound to this interaction (the interaction cookie binds the browser). */
  private async checkCsrf(uid: string, req: Request, res: Response): Promise<boolean> {
    const sent = typeof req.body?.csrf === 'string' ? req.body.csrf : '';
    if (sent && safeEqual(sent, await this.csrf(uid))) return true;
    this.html(res, 403, renderOAuthErrorPage('invalid_request', 'The form has expired. Go back and try again.'));
    return false;
  }

  /**
   * Pages of an interaction allow their forms to end at the client's (already validated)
   * redirect URI: browsers apply form-action to every redirect that follows a form submission.
   */
  private html(res: Response, status: number, body: string, details?: Details): void {
    const redirectOrigin = details ? originOf(details.params.redirect_uri) : null;
    if (redirectOrigin) res.setHeader('Content-Security-Policy', contentSecurityPolicy([`'self'`, redirectOrigin]));
    res.status(status).type('html').send(body);
  }
}

function originOf(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  try {
    const { origin } = new URL(value);
    return /^https?:\/\//.test(origin) ? origin : null;
  } catch {
    return null;
  }
}
