import { ApiError } from '../errors/api-error';

/**
 * How GET /users, /statuses, /lead_sources and /call_results answer `data` (docs/decisions.md
 * "Lists: paged by default, OnePageCRM's bare arrays on request"): `paged`, the spec's object
 * (`{ <plural>: [...], total_count, page, per_page, max_page }`), or `onepagecrm`, the bare array
 * OnePageCRM's own API answers and its clients iterate.
 */
export const LIST_FORMATS = ['paged', 'onepagecrm'] as const;
export type ListFormat = (typeof LIST_FORMATS)[number];

/** The request header that picks the format of one request, over the account's `list_format` setting. */
export const LIST_FORMAT_HEADER = 'X-List-Format';

/**
 * Most entries an unpaginated OnePageCRM-format list holds (no `page` nor `per_page` sent): the
 * first ones in the list's usual order. OnePageCRM documents these lists as unpaginated; the cap
 * keeps a reply bounded (NATS carries at most 1 MiB).
 */
export const ONEPAGECRM_LIST_CAP = 500;

/**
 * The same cap for GET /users: a user entry with every field at its longest is about 3.5 KB of
 * ASCII JSON (photo_url alone up to 2,000 characters), so 200 of them stay under 1 MiB.
 */
export const ONEPAGECRM_USERS_CAP = 200;

/** A list's OnePageCRM format: its bare array's entries, taken from the paged answer, and its cap. */
export interface OnePageCrmList<P, E> {
  /** The page's entries as OnePageCRM's array has them. */
  readonly entries: (page: P) => E[];
  /** Most entries when the query does not page. */
  readonly cap: number;
}

/** What the HTTP request asked of a list's format: the gateway sends it beside `payload` on those four routes. */
export interface ListFormatChoice {
  /** The {@link LIST_FORMAT_HEADER} value (lower-cased); absent: the account's `list_format` setting decides. */
  format?: ListFormat;
  /** Whether the query named `page` or `per_page`: a OnePageCRM-format list then pages as usual. */
  paged: boolean;
}

/** The header's error: the values it accepts. */
const HEADER_MESSAGE = `${LIST_FORMAT_HEADER} must be one of: ${LIST_FORMATS.map((format) => `'${format}'`).join(', ')}`;

/**
 * The format a request asked for in its {@link LIST_FORMAT_HEADER} (any letter case), undefined
 * when it sent none; any other value is 400 invalid_request_data naming the header.
 */
export function listFormatOfHeader(value: string | undefined): ListFormat | undefined {
  if (value === undefined) return undefined;
  const format = value.trim().toLowerCase();
  if ((LIST_FORMATS as readonly string[]).includes(format)) return format as ListFormat;
  throw ApiError.invalid({ [LIST_FORMAT_HEADER]: HEADER_MESSAGE });
}

/** The choice of one list request: its header's format and whether its query pages. */
export function listFormatChoice(header: string | undefined, query: Record<string, unknown>): ListFormatChoice {
  const format = listFormatOfHeader(header);
  const paged = query.page !== undefined || query.per_page !== undefined;
  return format === undefined ? { paged } : { format, paged };
}

/**
 * The page a OnePageCRM-format list reads: without `page` and `per_page` the whole list up to
 * `cap` entries (page 1 of `cap`), else the request's own page.
 */
export function onePageCrmWindow<R extends { page: number; per_page: number }>(request: R, paged: boolean, cap: number): R {
  return paged ? request : { ...request, page: 1, per_page: cap };
}
