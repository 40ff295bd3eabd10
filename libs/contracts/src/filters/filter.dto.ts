import type { PageInfo } from '../paging/paging.request';

/**
 * The condition language of saved filters (docs/decisions.md "Saved filters"): a filter holds a
 * list of conditions over contacts, all of which must hold (AND); a list value inside one
 * condition means any of its entries (OR). Text comparisons ignore letter case.
 */
export const FILTER_TEXT_FIELDS = ['title', 'first_name', 'last_name', 'company_name', 'job_title', 'background'] as const;

export const FILTER_CHANNEL_FIELDS = ['email', 'phone', 'url'] as const;

export const FILTER_REFERENCE_FIELDS = ['status_id', 'owner_id', 'lead_source_id', 'company_id'] as const;

export const FILTER_FLAG_FIELDS = ['starred', 'pending_deal', 'has_next_action'] as const;

export const FILTER_TIME_FIELDS = ['created_at', 'modified_at'] as const;

export const FILTER_FIELDS = [
  ...FILTER_TEXT_FIELDS,
  ...FILTER_CHANNEL_FIELDS,
  ...FILTER_REFERENCE_FIELDS,
  'tag',
  ...FILTER_FLAG_FIELDS,
  ...FILTER_TIME_FIELDS,
  'custom_field',
] as const;

export type FilterTextField = (typeof FILTER_TEXT_FIELDS)[number];

export type FilterChannelField = (typeof FILTER_CHANNEL_FIELDS)[number];

export type FilterReferenceField = (typeof FILTER_REFERENCE_FIELDS)[number];

export type FilterFlagField = (typeof FILTER_FLAG_FIELDS)[number];

export type FilterTimeField = (typeof FILTER_TIME_FIELDS)[number];

export type FilterField = (typeof FILTER_FIELDS)[number];

export const FILTER_OPERATORS = [
  'equals',
  'not_equals',
  'contains',
  'not_contains',
  'starts_with',
  'is_empty',
  'is_not_empty',
  'in',
  'not_in',
  'has_any',
  'has_all',
  'has_none',
  'is',
  'since',
  'until',
  'greater_than',
  'less_than',
] as const;

export type FilterOperator = (typeof FILTER_OPERATORS)[number];

/** Limits of the condition language. */
export const FILTER_LIMITS = { conditions: 50, listValues: 100, textValue: 200, name: 200 } as const;

/**
 * One condition as stored and shown: `field`, `operator`, `value` (absent for is_empty and
 * is_not_empty) and, for `custom_field`, `custom_field_id`.
 */
export type FilterConditionDto = {
  field: FilterField;
  operator: FilterOperator;
  value?: string | number | boolean | string[];
  custom_field_id?: string;
};

/** A saved filter. */
export type FilterDto = {
  id: string;
  name: string;
  conditions: FilterConditionDto[];
  created_at: string;
  modified_at: string;
};

export type FilterReply = { filter: FilterDto };

export type ListFiltersReply = PageInfo & { filters: FilterReply[] };
