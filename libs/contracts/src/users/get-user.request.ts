import { IsString } from 'class-validator';

export class GetUserRequest {
  /** Any string: an id that names no user of the caller's account is 404, not 400. */
  @IsString()
  user_id: string;
}

export interface GetUserReply {
  user: import('./user.dto').UserDto;
}
