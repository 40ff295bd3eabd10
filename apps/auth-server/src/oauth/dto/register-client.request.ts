import { ArrayMaxSize, ArrayMinSize, IsArray, IsIn, IsOptional, IsString, Length, Matches } from 'class-validator';

/** POST /operator/clients (decisions.md "Operator interface"). */
export class RegisterClientRequest {
  @IsString() @Length(1, 200) client_name: string;

  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(20)
  @IsString({ each: true })
  redirect_uris: string[];

  @IsString()
  @Matches(/^(crm|crm\.readonly|mcp)( (crm|crm\.readonly|mcp))*$/, {
    message: 'scope must be space-separated values of crm, crm.readonly, mcp',
  })
  scope: string;

  @IsIn(['none', 'client_secret_basic', 'client_secret_post'])
  token_endpoint_auth_method: 'none' | 'client_secret_basic' | 'client_secret_post';

  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @IsIn(['authorization_code', 'refresh_token'], { each: true })
  grant_types?: Array<'authorization_code' | 'refresh_token'>;
}

export interface RegisterClientResponse {
  client_id: string;
  client_secret?: string;
}
