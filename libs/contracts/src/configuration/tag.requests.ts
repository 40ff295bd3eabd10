import { IsString } from 'class-validator';
import { TimeFilterRequest } from '../paging/time-filter.request';
import type { PageInfo } from '../paging/paging.request';
import type { TagSummaryDto } from './summary.dto';

/** GET /tags: the account's tags by name, paged; `system_tags` always complete. */
export class ListTagsRequest extends TimeFilterRequest {}

export class TagNameRequest {
  /** A tag name in any letter case (URL-encoded in the path). */
  @IsString()
  tag_name: string;
}

export type ListTagsReply = PageInfo & { tags: TagSummaryDto[]; system_tags: TagSummaryDto[] };
