import { Module } from '@nestjs/common';
import { IdentityModule } from '../identity/identity.module';
import { OAuthModule } from '../oauth/oauth.module';
import { ApiKeysHandler } from './api-keys.handler';
import { ApiKeysService } from './api-keys.service';

/** API key rotation and the gateway's token-status fallback. */
@Module({ imports: [IdentityModule, OAuthModule], controllers: [ApiKeysHandler], providers: [ApiKeysService] })
export class ApiKeysModule {}
