import { IsOptional, IsString, MaxLength } from 'class-validator';
import { SortOrderParam } from '../validation/field-rules';
import { TimeFilterRequest } from './time-filter.request';

/**
 * Paging and the common time filters of record lists (TimeFilterRequest), `contact_id`,
 * `company_id` and `order`. Subclasses redeclare `date_filter` with DateFilterParam(their values) and declare `sort_by`.
 */
export class RecordListRequest extends TimeFilterRequest {
  /** Records of one contact (also the path parameter of /contacts/{contact_id}/...). */
  @IsOptional()
  @IsString({ message: 'contact_id must be a contact id' })
  @MaxLength(64, { message: 'contact_id must be a contact id' })
  contact_id?: string;

  /** Records of the company's contacts (deals: the deals of the company). */
  @IsOptional()
  @IsString({ message: 'company_id must be a company id' })
  @MaxLength(64, { message: 'company_id must be a company id' })
  company_id?: string;

  @SortOrderParam()
  order?: 'asc' | 'desc';
}
