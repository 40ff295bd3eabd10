import { Type } from 'class-transformer';
import { IsArray, IsEmail, IsIn, IsString, Length, MaxLength, ValidateNested } from 'class-validator';
import { ACCOUNT_RIGHTS, USER_PERMISSIONS, type AccountRight, type UserPermission } from '../users/user.dto';

export class ProvisionAccountAccount {
  @IsString() @Length(24, 24) id: string;
  @IsString() @MaxLength(200) name: string;
  @IsString() @MaxLength(32) region: string;
}

export class ProvisionUser {
  @IsString() @Length(24, 24) id: string;
  @IsString() @MaxLength(100) first_name: string;
  @IsString() @MaxLength(100) last_name: string;
  @IsEmail() email: string;
  @IsIn(['admin', 'user']) role: 'admin' | 'user';
  @IsArray() @IsIn(ACCOUNT_RIGHTS, { each: true }) account_rights: AccountRight[];
  @IsArray() @IsIn(USER_PERMISSIONS, { each: true }) permissions: UserPermission[];
}

/**
 * auth-server -> crm-core (subject crm.accounts.provision.v1): create the CRM half of an account
 * and its first admin. Idempotent: the same message twice leaves one account and one user.
 */
export class ProvisionAccountMessage {
  @ValidateNested() @Type(() => ProvisionAccountAccount) account: ProvisionAccountAccount;
  @ValidateNested() @Type(() => ProvisionUser) admin: ProvisionUser;
}

export interface ProvisionAccountReply {
  account_id: string;
  user_id: string;
}

/**
 * auth-server -> crm-core (subject crm.users.provision.v1): create (idempotently) the CRM profile
 * of a user added to an existing account.
 */
export class ProvisionUserMessage {
  @IsString() @Length(24, 24) account_id: string;
  @ValidateNested() @Type(() => ProvisionUser) user: ProvisionUser;
}
