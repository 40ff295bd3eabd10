/**
 * Descriptions and examples of the path and query parameters that recur across the API, for the
 * OpenAPI document. A request class field's own JSDoc comes first (it says what is special about
 * that route: defaults, sort keys); this table gives the common meaning and an example. Every
 * parameter of every route must be described by one of the two (the OpenAPI builder refuses a
 * parameter without a description, and its unit test covers every route).
 */
export interface ParameterDoc {
  readonly description: string;
  readonly example: string | number | boolean;
}

/** An id the API issues: 24 hexadecimal characters. */
export const EXAMPLE_ID = '65f1c0a2b3d4e5f601234567';

const TIME_BOUND = '`YYYY-MM-DD` (a UTC day) or Unix seconds';

export const PARAMETER_DOCS: Readonly<Record<string, ParameterDoc>> = {
  page: { description: 'Page number, from 1 (default 1).', example: 1 },
  per_page: { description: 'Records per page, from 1 (default 10; above 100 counts as 100).', example: 10 },
  date_filter: {
    description: 'The date column `since` and `until` apply to (default `created_at`); not with `modified_since` or `unmodified_since`.',
    example: 'created_at',
  },
  since: { description: `Only records whose \`date_filter\` column is on or after this bound: ${TIME_BOUND}.`, example: '2026-01-01' },
  until: { description: `Only records whose \`date_filter\` column is on or before this bound: ${TIME_BOUND}.`, example: '2026-12-31' },
  modified_since: { description: `Only records modified on or after this bound: ${TIME_BOUND}.`, example: '2026-01-01' },
  unmodified_since: { description: `Only records not modified since this bound: ${TIME_BOUND}.`, example: 1767225600 },
  sort_by: { description: 'The sort key.', example: 'created_at' },
  order: { description: 'Sort direction: `asc` or `desc` (any letter case).', example: 'desc' },
  partial: { description: 'On PUT: `true` changes only the fields sent, like PATCH.', example: true },
  type: { description: 'Only records of this type.', example: 'text' },
  status: { description: 'Only records with this status.', example: 'pending' },
  fields: {
    description: 'Extra data embedded in each entry: `<resource>(all)`, comma-separated (e.g. `deals(all),notes(all)`).',
    example: 'deals(all)',
  },
  team: { description: "`true`: the whole account's records, not only the caller's.", example: true },
  search: { description: 'Free text matched against the names and contact details.', example: 'smith' },
  name: { description: 'Only records whose name contains this text (any letter case).', example: 'Renewal' },
  phone: { description: 'Only contacts with a phone number containing these digits.', example: '5550100' },
  url: { description: 'Only contacts with a URL containing this text.', example: 'example.com' },
  email: { description: 'Only contacts with an email address containing this text.', example: 'ada@example.com' },
  action_stream: { description: "`true`: only contacts in the caller's action stream.", example: true },
  has_actions: { description: '`true`: only contacts with a next action; `false`: only those without.', example: true },
  has_actions_for_me: { description: '`true`: only contacts whose next action is assigned to the caller.', example: true },
  has_actions_today: { description: '`true`: only contacts with an action due today (UTC).', example: true },
  pending_deal: { description: '`true`: only contacts that are the primary contact of a pending deal.', example: true },
  starred: { description: '`true`: only starred contacts.', example: true },
  waiting: { description: '`true`: only contacts whose next action is waiting.', example: false },
  letter: { description: 'Only contacts whose sort name starts with this letter (`1` for names not starting with a-z).', example: 'a' },
  custom_field_value: { description: 'With `custom_field_id`: only contacts whose value of that field is this.', example: 'Gold' },
  lead_source: { description: 'Only contacts of the lead source with this name.', example: 'Website' },
  not_linked_with: { description: 'Only contacts neither of this company nor linked to it (a company id).', example: EXAMPLE_ID },
  tag: { description: 'Only records of contacts with this tag (any letter case).', example: 'vip' },
  tag_name: { description: 'The tag name (any letter case).', example: 'vip' },
  ids: { description: 'Contact ids, comma-separated (at most 100).', example: `${EXAMPLE_ID},65f1c0a2b3d4e5f601234568` },
  stage: { description: 'Only deals at this stage (1 to 99).', example: 50 },
  include_history: { description: '`true`: each deal also carries `previous_pipeline_stages`.', example: true },
  done: { description: '`true`: only completed actions; `false`: only open ones.', example: false },
  last_id: { description: 'The id of the contact received last; `0` for the first batch.', example: EXAMPLE_ID },
  provider: { description: 'The external system the action mirrors (e.g. a calendar).', example: 'google_calendar' },
  external_id: { description: "The event's id in the external system.", example: 'evt_8f14e45fceea167a' },
};

/** `<thing>_id`: the id of one record (path) or a filter by it (query). */
const ID_PARAMETER = /^([a-z_]+)_id$/;

/** The shared description and example of a parameter name, if the table or the `_id` rule has one. */
export function parameterDoc(name: string, where: 'path' | 'query'): ParameterDoc | undefined {
  const doc = PARAMETER_DOCS[name];
  if (doc) return doc;
  const id = ID_PARAMETER.exec(name);
  if (!id) return undefined;
  const thing = id[1].replace(/_/g, ' ');
  return where === 'path'
    ? { description: `The ${thing}'s id.`, example: EXAMPLE_ID }
    : { description: `Only records of the ${thing} with this id.`, example: EXAMPLE_ID };
}
