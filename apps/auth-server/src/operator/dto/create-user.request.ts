import { ArrayMaxSize, IsArray, IsEmail, IsIn, IsOptional, IsString, Length, MaxLength, MinLength } from 'class-validator';
import { ACCOUNT_RIGHTS, USER_PERMISSIONS, type AccountRight, type UserPermission } from '@crm/contracts';

/** POST /operator/accounts/{account_id}/users. */
export class CreateUserRequest {
  @IsString() @Length(1, 100) first_name: string;
  @IsString() @Length(1, 100) last_name: string;
  @IsEmail({}, { message: 'email must be a valid email address' }) @MaxLength(254) email: string;
  @IsString() @MinLength(8, { message: 'password must be at least 8 characters' }) @MaxLength(200) password: string;
  @IsIn(['admin', 'user']) role: 'admin' | 'user';
  @IsOptional() @IsArray() @ArrayMaxSize(10) @IsIn(ACCOUNT_RIGHTS, { each: true }) account_rights?: AccountRight[];
  @IsOptional() @IsArray() @ArrayMaxSize(10) @IsIn(USER_PERMISSIONS, { each: true }) permissions?: UserPermission[];
}

export interface CreateUserResponse {
  user: { id: string; email: string; api_key: string };
}
