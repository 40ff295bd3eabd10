import { Module } from '@nestjs/common';
import { CredentialsCache } from '../credentials/credentials.cache';
import { CredentialsHandler } from '../credentials/credentials.handler';
import { CredentialsService } from '../credentials/credentials.service';
import { AccountProvisioningService } from '../operator/account-provisioning.service';
import { OperatorController } from '../operator/operator.controller';
import { OperatorGuard } from '../operator/operator.guard';
import { UserProvisioningService } from '../operator/user-provisioning.service';
import { PasswordHashing } from '../security/password-hashing';
import { IdentityRepository } from './identity.repository';

/** Accounts, users and their credentials: the identity context of the auth schema. */
@Module({
  controllers: [OperatorController, CredentialsHandler],
  providers: [
    UserProvisioningService,
    IdentityRepository,
    CredentialsCache,
    CredentialsService,
    AccountProvisioningService,
    OperatorGuard,
    PasswordHashing,
  ],
  exports: [CredentialsService, IdentityRepository, PasswordHashing],
})
export class IdentityModule {}
