import { IsIn, IsOptional } from 'class-validator';
import { LowerKey } from '../validation/transforms';
import { IsTimeBound, NotWith } from '../validation/validators';
import { PagingRequest } from './paging.request';

/** `date_filter` values of every list (decisions.md "Paging and lists"); deals and actions add their date columns. */
export const TIME_DATE_FILTERS = ['created_at', 'modified_at'] as const;

export type TimeDateFilter = (typeof TIME_DATE_FILTERS)[number];

/**
 * The `date_filter` parameter over `values` (letter case ignored; OnePageCRM's `updated_at` is
 * `modified_at`). It cannot be combined with
 * modified_since or unmodified_since: the 400 names date_filter and the other parameter.
 * A list with more date columns redeclares `date_filter` with this decorator and its own values
 * (a redeclared property replaces the inherited validators of that property).
 */
export function DateFilterParam(values: readonly string[]): PropertyDecorator {
  return (target: object, propertyName: string | symbol) => {
    for (const decorate of [
      IsOptional(),
      LowerKey(),
      IsIn(values, { message: `date_filter must be one of: ${values.join(', ')}` }),
      NotWith(['modified_since', 'unmodified_since']),
    ]) {
      decorate(target, propertyName);
    }
  };
}

/**
 * Paging and the common time filters (spec "Common list filters for time", decisions.md "Paging
 * and lists") shared by every list: `since`/`until` on `date_filter` (default created_at),
 * `modified_since`/`unmodified_since` on modified_at; each bound `YYYY-MM-DD` or Unix seconds.
 * crm-core turns them into SQL with `timeConditions` (apps/crm-core/src/records/time-filters.ts).
 */
export class TimeFilterRequest extends PagingRequest {
  @DateFilterParam(TIME_DATE_FILTERS)
  date_filter?: string;

  @IsOptional()
  @IsTimeBound()
  since?: string;

  @IsOptional()
  @IsTimeBound()
  until?: string;

  @IsOptional()
  @IsTimeBound()
  @NotWith(['date_filter'])
  modified_since?: string;

  @IsOptional()
  @IsTimeBound()
  @NotWith(['date_filter'])
  unmodified_since?: string;
}
