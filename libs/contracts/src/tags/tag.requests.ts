import { IsString } from 'class-validator';
import { TimeFilterRequest } from '../paging/time-filter.request';

/** GET /tags: the account's tags by name, paged; `system_tags` always complete. */
export class ListTagsRequest extends TimeFilterRequest {}

export class TagNameRequest {
  /** A tag name in any letter case (URL-encoded in the path). */
  @IsString()
  tag_name: string;
}
