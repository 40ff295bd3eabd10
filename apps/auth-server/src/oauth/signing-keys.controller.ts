import { Body, Controller, Get, HttpCode, Inject, Post, UseGuards } from '@nestjs/common';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { parseContract } from '@crm/contracts';
import { AuthServerConfig } from '../config/auth-server.config';
import { OperatorGuard } from '../operator/operator.guard';
import { OIDC_PROVIDER } from './oauth.tokens';
import type { OidcProviderHolder } from './oidc-provider.holder';
import { OidcKeysRepository } from './oidc-keys.repository';

class RotateSigningKeyRequest {
  /** Seconds between publishing the new key and signing with it (0: at once, for a compromised key). */
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(7 * 86400)
  activate_in_seconds?: number;
}

/** Operator view and manual rotation of the access-token signing keys (docs/decisions.md). */
@Controller('operator/signing-keys')
@UseGuards(OperatorGuard)
export class SigningKeysController {
  constructor(
    private readonly keys: OidcKeysRepository,
    private readonly config: AuthServerConfig,
    @Inject(OIDC_PROVIDER) private readonly holder: OidcProviderHolder,
  ) {}

  @Get()
  async list() {
    return { keys: await this.keys.list() };
  }

  @Post('rotate')
  @HttpCode(201)
  async rotate(@Body() body: unknown) {
    const request = parseContract(RotateSigningKeyRequest, body ?? {});
    const next = await this.keys.stageSuccessor(request.activate_in_seconds ?? this.config.SIGNING_KEY_PUBLISH_AHEAD_SECONDS);
    await this.holder.refresh();
    return { kid: next.jwk.kid, created_at: next.created_at, activates_at: next.activates_at };
  }
}
