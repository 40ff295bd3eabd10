import { Type } from 'class-transformer';
import { IsDefined, IsEmail, IsOptional, IsString, Length, Matches, MaxLength, MinLength, ValidateNested } from 'class-validator';

export class CreateAccountAdmin {
  @IsString() @Length(1, 100) first_name: string;
  @IsString() @Length(1, 100) last_name: string;
  @IsEmail({}, { message: 'email must be a valid email address' }) @MaxLength(254) email: string;
  @IsString() @MinLength(8, { message: 'password must be at least 8 characters' }) @MaxLength(200) password: string;
}

/** POST /operator/accounts (decisions.md "Operator interface"). */
export class CreateAccountRequest {
  @IsString() @Length(1, 200) name: string;

  @IsOptional()
  @IsString()
  @Matches(/^[a-z0-9-]{1,32}$/, { message: 'region must be a configured region name' })
  region?: string;

  @IsDefined({ message: 'admin is required' })
  @ValidateNested()
  @Type(() => CreateAccountAdmin)
  admin: CreateAccountAdmin;
}

export interface CreateAccountResponse {
  account: { id: string; name: string; region: string; base_url: string };
  user: { id: string; email: string; api_key: string };
}
