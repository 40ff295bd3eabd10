import { Transform } from 'class-transformer';
import { IsInt, Max, Min } from 'class-validator';
import { toInteger } from '../validation/transforms';

export const MAX_PER_PAGE = 100;

export const DEFAULT_PER_PAGE = 10;

/** Highest page number: beyond 2^53 it is not an exact integer, and its row offset would overflow SQL's bigint. */
export const MAX_PAGE = Number.MAX_SAFE_INTEGER;

export const MAX_PAGE_MESSAGE = `page must be an integer from 1 to ${MAX_PAGE}`;

/** `page` from 1 (default 1); `per_page` from 1 (default 10), above 100 clamped to 100. */
export class PagingRequest {
  @Transform(toInteger)
  @IsInt({ message: 'page must be an integer of at least 1' })
  @Min(1, { message: 'page must be an integer of at least 1' })
  @Max(MAX_PAGE, { message: MAX_PAGE_MESSAGE })
  page: number = 1;

  @Transform(toInteger)
  @Transform(({ value }) => (typeof value === 'number' && value > MAX_PER_PAGE ? MAX_PER_PAGE : value))
  @IsInt({ message: 'per_page must be an integer of at least 1' })
  @Min(1, { message: 'per_page must be an integer of at least 1' })
  per_page: number = DEFAULT_PER_PAGE;
}

export interface PageInfo {
  total_count: number;
  page: number;
  per_page: number;
  max_page: number;
}

export function pageInfo(totalCount: number, page: number, perPage: number): PageInfo {
  return { total_count: totalCount, page, per_page: perPage, max_page: Math.ceil(totalCount / perPage) };
}
