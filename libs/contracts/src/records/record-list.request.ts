import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { PagingRequest } from '../paging/paging.request';
import { IsTimeBound, Lower } from './record.validators';

/**
 * Paging and the common time filters of record lists (spec "Common list filters for time"):
 * since/until apply to `date_filter` (default created_at); modified_since and unmodified_since
 * cannot be combined with date_filter. Subclasses declare `date_filter` and `sort_by`.
 */
export class RecordListRequest extends PagingRequest {
  /** Records of one contact (also the path parameter of /contacts/{contact_id}/...). */
  @IsOptional()
  @IsString({ message: 'contact_id must be a contact id' })
  @MaxLength(64, { message: 'contact_id must be a contact id' })
  contact_id?: string;

  @IsOptional()
  @IsTimeBound()
  since?: string;

  @IsOptional()
  @IsTimeBound()
  until?: string;

  @IsOptional()
  @IsTimeBound()
  modified_since?: string;

  @IsOptional()
  @IsTimeBound()
  unmodified_since?: string;

  @IsOptional()
  @Lower()
  @IsIn(['asc', 'desc'], { message: 'order must be asc or desc' })
  order?: 'asc' | 'desc';
}
