import type { PageInfo } from '../paging/paging.request';
import { Subjects, type Subject } from '../rpc/subjects';

/** Value types of custom, company and deal fields (decisions.md "Configuration and users"). */
export const FIELD_TYPES = ['text', 'number', 'date', 'checkbox', 'select_box', 'multiple_choice'] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

/** Types whose values are picked from `choices`; only these carry `choices`. */
export const CHOICE_FIELD_TYPES: readonly FieldType[] = ['select_box', 'multiple_choice'];

export function hasChoices(type: FieldType): boolean {
  return CHOICE_FIELD_TYPES.includes(type);
}

/** The three separate sets: contact custom fields, company fields and deal fields. */
export const FIELD_SETS = ['custom_fields', 'company_fields', 'deal_fields'] as const;
export type FieldSet = (typeof FIELD_SETS)[number];

/** Singular key of one field in a set's responses: `{ custom_field }`, `{ company_field }`, `{ deal_field }`. */
export type FieldItemKey<S extends FieldSet = FieldSet> = S extends 'custom_fields'
  ? 'custom_field'
  : S extends 'company_fields'
    ? 'company_field'
    : 'deal_field';

export interface FieldSetInfo<S extends FieldSet = FieldSet> {
  /** Collection key and path segment: `custom_fields`. */
  readonly set: S;
  /** Key of one record: `custom_field`. */
  readonly item: FieldItemKey<S>;
  /** Path parameter naming one record: `custom_field_id`. */
  readonly idParam: `${FieldItemKey<S>}_id`;
  /** Human name used in messages and OpenAPI summaries. */
  readonly label: string;
  readonly subjects: {
    readonly list: Subject;
    readonly get: Subject;
    readonly create: Subject;
    readonly update: Subject;
    readonly patch: Subject;
    readonly delete: Subject;
  };
}

export const FIELD_SET_INFO: { readonly [S in FieldSet]: FieldSetInfo<S> } = {
  custom_fields: {
    set: 'custom_fields',
    item: 'custom_field',
    idParam: 'custom_field_id',
    label: 'contact custom field',
    subjects: {
      list: Subjects.CustomFieldsList,
      get: Subjects.CustomFieldsGet,
      create: Subjects.CustomFieldsCreate,
      update: Subjects.CustomFieldsUpdate,
      patch: Subjects.CustomFieldsPatch,
      delete: Subjects.CustomFieldsDelete,
    },
  },
  company_fields: {
    set: 'company_fields',
    item: 'company_field',
    idParam: 'company_field_id',
    label: 'company field',
    subjects: {
      list: Subjects.CompanyFieldsList,
      get: Subjects.CompanyFieldsGet,
      create: Subjects.CompanyFieldsCreate,
      update: Subjects.CompanyFieldsUpdate,
      patch: Subjects.CompanyFieldsPatch,
      delete: Subjects.CompanyFieldsDelete,
    },
  },
  deal_fields: {
    set: 'deal_fields',
    item: 'deal_field',
    idParam: 'deal_field_id',
    label: 'deal field',
    subjects: {
      list: Subjects.DealFieldsList,
      get: Subjects.DealFieldsGet,
      create: Subjects.DealFieldsCreate,
      update: Subjects.DealFieldsUpdate,
      patch: Subjects.DealFieldsPatch,
      delete: Subjects.DealFieldsDelete,
    },
  },
};

/** A custom, company or deal field as the API shows it (spec "Custom field, company field"). */
export interface FieldDto {
  id: string;
  name: string;
  type: FieldType;
  position: number;
  /** Only for `select_box` and `multiple_choice`. */
  choices?: string[];
  /** ISO 8601 UTC. */
  created_at: string;
  /** ISO 8601 UTC. */
  modified_at: string;
}

/** `{ custom_field: {...} }` and its siblings. */
export type FieldItem<S extends FieldSet = FieldSet> = { [K in FieldItemKey<S>]: FieldDto };

/** GET /custom_fields: `{ custom_fields: [{ custom_field }], total_count, page, per_page, max_page }`. */
export type ListFieldsReply<S extends FieldSet = FieldSet> = { [K in S]: Array<FieldItem<S>> } & PageInfo;

/** Single-record replies: `{ custom_field: {...} }`. */
export type FieldReply<S extends FieldSet = FieldSet> = FieldItem<S>;

/** DELETE answers an empty object. */
export type DeleteFieldReply = Record<string, never>;

/** Limits of field definitions (the spec shows none). */
export const FIELD_LIMITS = {
  nameLength: 100,
  choiceLength: 200,
  choices: 500,
  maxPosition: 1_000_000,
} as const;
