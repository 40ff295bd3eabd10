/**
 * The MCP server's tools, resources and prompts, declared over the API routes: a tool names the
 * route whose request class is its input (the JSON Schema is derived from that class) and whose
 * scope rules, limits and validation it goes through. Nothing here repeats a route's shape.
 */

/** A read composed into a tool's answer: `key` holds the route's reply. */
export interface McpComposedRead {
  readonly key: string;
  readonly operationId: string;
  /** The tool argument passed on, as the composed route's parameter of the same name. */
  readonly from: string;
  readonly fixed: Readonly<Record<string, unknown>>;
}

export interface McpToolDeclaration {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  /** The route called with the tool's arguments; its request class is the tool's input schema. */
  readonly operationId: string;
  /** Only these request properties are offered (default: every property but `omit`). */
  readonly pick?: readonly string[];
  readonly omit?: readonly string[];
  /** Arguments the tool always sends (not offered to the assistant). */
  readonly fixed?: Readonly<Record<string, unknown>>;
  /** Reads whose replies are added to the answer (a contact's deals and recent notes). */
  readonly with?: readonly McpComposedRead[];
}

/** Largest page a list tool returns (an assistant's context is small; it pages for more). */
export const MCP_MAX_PER_PAGE = 25;
export const MCP_DEFAULT_PER_PAGE = 10;
/** No tool answer is longer than this many characters of JSON text. */
export const MCP_MAX_RESULT_CHARS = 40_000;

/** Never offered: output formats an assistant does not need, and raw history. */
const LIST_OMIT = ['fields', 'include_history'] as const;

export const MCP_TOOLS: readonly McpToolDeclaration[] = [
  {
    name: 'search_contacts',
    title: 'Search contacts',
    description:
      "Find contacts by name, email or company (`search`), status, tag, owner and dates. Returns contacts with their next action and company, a page at a time; by default the caller's own contacts, `team: true` for the whole account's.",
    operationId: 'listContacts',
    omit: LIST_OMIT,
  },
  {
    name: 'get_contact',
    title: 'Get a contact',
    description:
      'One contact with its next action, queued actions and company, plus its latest deals (up to 10) and most recent notes (up to 5). Use the ids it returns to log notes, calls and actions.',
    operationId: 'getContact',
    with: [
      { key: 'deals', operationId: 'listContactDeals', from: 'contact_id', fixed: { per_page: 10 } },
      { key: 'recent_notes', operationId: 'listNotes', from: 'contact_id', fixed: { per_page: 5 } },
    ],
  },
  {
    name: 'search_companies',
    title: 'Search companies',
    description: "Find the account's companies by name (`search`) and dates, with their counters and pending deals, a page at a time.",
    operationId: 'listCompanies',
    omit: LIST_OMIT,
  },
  {
    name: 'get_company',
    title: 'Get a company',
    description: 'One company with its counters, its contacts (up to 100) and its pending deals.',
    operationId: 'getCompany',
  },
  {
    name: 'search_deals',
    title: 'Search deals',
    description:
      "Find the account's deals by name or text (`search`), status (pending, won, lost, closed), stage, pipeline, owner, contact or company, and dates, a page at a time.",
    operationId: 'listDeals',
    omit: LIST_OMIT,
  },
  {
    name: 'get_deal',
    title: 'Get a deal',
    description: 'One deal: amount, stage, status, contact, pipeline, close date and its linked contacts.',
    operationId: 'getDeal',
  },
  {
    name: 'list_action_stream',
    title: "List the caller's action stream",
    description:
      "The caller's action stream: contacts that have a next action assigned to the caller, each with that next action (date, status, text), in name order, a page at a time.",
    operationId: 'listContacts',
    pick: ['search', 'page', 'per_page'],
    fixed: { action_stream: true },
  },
  {
    name: 'create_note',
    title: 'Log a note',
    description: "Log a note on a contact (updates the contact's last activity). Pass `idempotency_key` so a retry never logs it twice.",
    operationId: 'createNote',
  },
  {
    name: 'create_call',
    title: 'Log a call',
    description: 'Log a call with a contact, with its result and text. Pass `idempotency_key` so a retry never logs it twice.',
    operationId: 'createCall',
  },
  {
    name: 'create_action',
    title: 'Create an action',
    description:
      "Create a next action for a contact (status date, date_time, asap or waiting: it replaces the assignee's current next action, which moves to the front of the queue) or a queued action. Pass `idempotency_key` so a retry never creates two.",
    operationId: 'createAction',
  },
  {
    name: 'complete_action',
    title: 'Complete an action',
    description: "Mark an action as done; the contact's first queued action then becomes its next action.",
    operationId: 'markActionAsDone',
  },
];

export interface McpResourceDeclaration {
  readonly uri: string;
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly operationId: string;
  readonly fixed: Readonly<Record<string, unknown>>;
}

/** The account's configuration, so an assistant uses the right ids (read with the caller's rights). */
export const MCP_RESOURCES: readonly McpResourceDeclaration[] = [
  {
    uri: 'crm://account/statuses',
    name: 'statuses',
    title: 'Contact statuses',
    description: 'The ids and names of the contact statuses (status_id of contacts).',
    operationId: 'listStatuses',
    fixed: { per_page: 100 },
  },
  {
    uri: 'crm://account/pipelines',
    name: 'pipelines',
    title: 'Deal pipelines',
    description: 'The deal pipelines and their stages (pipeline_id and stage of deals).',
    operationId: 'listPipelines',
    fixed: { per_page: 100 },
  },
  {
    uri: 'crm://account/custom_fields',
    name: 'custom_fields',
    title: 'Contact custom fields',
    description: 'The custom fields of contacts: ids, names, types and choices.',
    operationId: 'listCustomFields',
    fixed: { per_page: 100 },
  },
  {
    uri: 'crm://account/deal_fields',
    name: 'deal_fields',
    title: 'Deal fields',
    description: 'The custom fields of deals: ids, names, types and choices.',
    operationId: 'listDealFields',
    fixed: { per_page: 100 },
  },
  {
    uri: 'crm://account/lead_sources',
    name: 'lead_sources',
    title: 'Lead sources',
    description: 'The lead sources (lead_source_id of contacts).',
    operationId: 'listLeadSources',
    fixed: { per_page: 100 },
  },
  {
    uri: 'crm://account/users',
    name: 'users',
    title: 'Users',
    description: "The account's users (owner_id of contacts, assignee_id of actions).",
    operationId: 'listUsers',
    fixed: { per_page: 100 },
  },
  {
    uri: 'crm://account/call_results',
    name: 'call_results',
    title: 'Call results',
    description: 'The results a logged call may have (call_result of create_call).',
    operationId: 'listCallResults',
    fixed: {},
  },
];

export interface McpPromptDeclaration {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly arguments: readonly { name: string; description: string; required: boolean }[];
  /** The user message, with `{name}` replaced by each argument. */
  readonly template: string;
}

export const MCP_PROMPTS: readonly McpPromptDeclaration[] = [
  {
    name: 'follow_up',
    title: 'Follow up on a contact',
    description: 'Review a contact and plan the next step: read it, summarise the situation, log a note and set the next action.',
    arguments: [
      { name: 'contact_id', description: 'The contact to follow up on', required: true },
      { name: 'goal', description: 'What the follow-up should achieve', required: false },
    ],
    template:
      'Use get_contact with contact_id {contact_id}. Summarise where this contact stands: company, status, open deals, the next action and the latest notes. Goal: {goal}. Then propose one next action (text and date); once I agree, log a note of what was decided with create_note and set the action with create_action, each with an idempotency_key.',
  },
  {
    name: 'plan_my_day',
    title: 'Plan my day',
    description: "Go through the caller's action stream and propose an order for today's work.",
    arguments: [],
    template:
      'Use list_action_stream (page through it) to read my next actions. Group them into overdue, today and later, and propose an order for today with one line of reasoning each. Do not change anything until I confirm; completed actions are marked with complete_action.',
  },
];
