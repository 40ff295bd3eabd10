import { ArrayMaxSize, IsArray, IsString, MaxLength, ValidateIf } from 'class-validator';
import { AttachmentsField } from '../attachments/attachment.requests';
import { PagingRequest } from '../paging/paging.request';
import { present } from '../validation/validators';

/** Fields of notes, calls and meetings (create and update): the users to notify, with the attachments. */
export class NotifyUsersField extends AttachmentsField {
  /** Users of the account to notify of the record (the author is never notified). */
  @ValidateIf(present('user_ids_to_notify'))
  @IsArray({ message: 'user_ids_to_notify must be an array of user ids' })
  @ArrayMaxSize(100, { message: 'user_ids_to_notify may hold at most 100 ids' })
  @IsString({ each: true, message: 'user_ids_to_notify must be an array of user ids' })
  @MaxLength(64, { each: true, message: 'user_ids_to_notify must be an array of user ids' })
  user_ids_to_notify?: string[] | null;
}

/** GET /notifications: the caller's notifications, newest first. */
export class ListNotificationsRequest extends PagingRequest {}

export class NotificationIdRequest {
  @IsString()
  notification_id: string;
}
