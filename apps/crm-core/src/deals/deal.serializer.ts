import type { DealDto, DealFieldValueDto, DealItemDto, DealStatus, LinkedContactDto } from '@crm/contracts';
import type { EntityManager } from 'typeorm';
import { preparedQuery } from '../contacts/prepared-query';
import { attachmentsJson, toAttachmentDtos } from '../records/attachments';
import { fullName, isoOf, plainDateOf } from '../records/record-common';

/**
 * Everything a Deal shows, in one SELECT over crm.deals aliased `d` (primary contact `c`): items,
 * linked contacts, related notes and attachments as correlated subqueries on indexed columns.
 */
export const DEAL_SELECT = `SELECT d.id, d.account_id, d.contact_id, d.owner_id, d.author_id, d.pipeline_id, d.sales_pipeline_id, d.name, d.text, d.status,
    d.stage, d.last_stage, d.expected_close_date, d.close_date, d.date, d.amount, d.months, d.cost, d.commission_base, d.commission_type,
    d.commission, d.commission_percentage, d.reason_lost_id, d.deal_fields, d.previous_pipeline_stages, d.created_at, d.modified_at,
    c.first_name AS c_first_name, c.last_name AS c_last_name, c.company_name AS c_company_name, c.status_id AS c_status_id,
    ou.first_name AS o_first_name, ou.last_name AS o_last_name, ou.email AS o_email,
    au.first_name AS a_first_name, au.last_name AS a_last_name,
    (SELECT coalesce(json_agg(json_build_object('id', i.id, 'name', i.name, 'description', i.description, 'cost', i.cost, 'price', i.price, 'qty', i.qty,
              'predefined_item_id', i.predefined_item_id, 'position', i.position, 'created_at', i.created_at, 'modified_at', i.modified_at) ORDER BY i.position, i.id), '[]'::json)
       FROM crm.deal_items i WHERE i.deal_id = d.id) AS items,
    (SELECT coalesce(json_agg(json_build_object('id', lc.id, 'first_name', lc.first_name, 'last_name', lc.last_name, 'company', lc.company_name, 'photo_url', lc.photo_url) ORDER BY lc.sort_name, lc.id), '[]'::json)
       FROM crm.deal_contacts dc JOIN crm.contacts lc ON lc.id = dc.contact_id WHERE dc.deal_id = d.id AND lc.deleted_at IS NULL) AS linked,
    EXISTS (SELECT 1 FROM crm.notes n WHERE n.linked_deal_id = d.id) AS has_related_notes,
    ${attachmentsJson('d.id')} AS attachments
  FROM crm.deals d
  JOIN crm.contacts c ON c.id = d.contact_id
  LEFT JOIN crm.users ou ON ou.id = d.owner_id
  LEFT JOIN crm.users au ON au.id = d.author_id`;

export interface DealRow {
  id: string;
  account_id: string;
  contact_id: string;
  owner_id: string;
  author_id: string;
  pipeline_id: string;
  sales_pipeline_id: string;
  name: string;
  text: string;
  status: DealStatus;
  stage: number | null;
  last_stage: number | null;
  expected_close_date: string | Date;
  close_date: string | Date;
  date: string | Date;
  amount: string | number;
  months: number;
  cost: string | number;
  commission_base: string;
  commission_type: string;
  commission: string | number;
  commission_percentage: string | number;
  reason_lost_id: string | null;
  deal_fields: Record<string, unknown>;
  previous_pipeline_stages: Record<string, number>;
  created_at: Date | string;
  modified_at: Date | string;
  c_first_name: string;
  c_last_name: string;
  c_company_name: string;
  c_status_id: string;
  o_first_name: string | null;
  o_last_name: string | null;
  o_email: string | null;
  a_first_name: string | null;
  a_last_name: string | null;
  items: Array<{
    id: string;
    name: string;
    description: string;
    cost: number | string;
    price: number | string;
    qty: number;
    predefined_item_id: string | null;
    position: number;
    created_at: string;
    modified_at: string;
  }>;
  linked: Array<{
    id: string;
    first_name: string;
    last_name: string;
    company: string;
    photo_url: string;
  }>;
  has_related_notes: boolean;
  attachments: unknown;
}

/** Definition of a deal field as the Deal's `deal_fields` entries show it. */
export interface DealFieldDefinition {
  id: string;
  name: string;
  type: string;
  position: number;
  choices: string[] | null;
}

/** The account's deal fields by id (in display order). */
export async function dealFieldDefinitions(m: EntityManager, accountId: string): Promise<Map<string, DealFieldDefinition>> {
  const rows: DealFieldDefinition[] = await m.query(
    "SELECT id, name, type, position, choices FROM crm.fields WHERE account_id = $1 AND field_set = 'deal_fields' ORDER BY position, created_at, id",
    [accountId],
  );
  return new Map(rows.map((row) => [row.id, row]));
}

/** Money rounded to cents (what numeric(18, 2) keeps). */
export function money(value: number): number {
  return Math.round(value * 100) / 100;
}

/** The amounts a deal derives: totals over its months, margin, and a percentage commission. */
export function dealTotals(amount: number, months: number, cost: number): { total_amount: number; total_cost: number; margin: number } {
  const total_amount = money(amount * months);
  const total_cost = money(cost * months);
  return { total_amount, total_cost, margin: money(total_amount - total_cost) };
}

function dealFieldsOf(values: Record<string, unknown>, definitions: Map<string, DealFieldDefinition>): DealFieldValueDto[] {
  const out: DealFieldValueDto[] = [];
  for (const def of definitions.values()) {
    const value = values[def.id];
    if (value === undefined || value === null) continue;
    const deal_field: DealFieldValueDto['deal_field'] = {
      id: def.id,
      name: def.name,
      type: def.type,
      position: def.position,
    };
    if (def.choices) deal_field.choices = def.choices;
    out.push({ deal_field, value });
  }
  return out;
}

/**
 * The API (and webhook) shape of a deal. Pending deals show `stage`; won and lost deals show
 * `stage` null and `last_stage`, the stage they closed from (Events rule 6).
 */
export function toDealDto(
  row: DealRow,
  definitions: Map<string, DealFieldDefinition>,
  options: { includeHistory?: boolean } = {},
): DealDto {
  const amount = Number(row.amount);
  const cost = Number(row.cost);
  const items: DealItemDto[] = row.items.map((i) => ({
    id: i.id,
    name: i.name,
    description: i.description,
    cost: Number(i.cost),
    price: Number(i.price),
    amount: money(Number(i.price) * i.qty),
    qty: i.qty,
    deal_id: row.id,
    predefined_item_id: i.predefined_item_id,
    position: i.position,
    created_at: isoOf(i.created_at),
    modified_at: isoOf(i.modified_at),
  }));
  const linked: LinkedContactDto[] = row.linked.map((c) => ({
    id: c.id,
    contact_name: fullName(c.first_name, c.last_name),
    company: c.company,
    photo_url: c.photo_url,
  }));
  const dto: DealDto = {
    id: row.id,
    contact_id: row.contact_id,
    owner_id: row.owner_id,
    pipeline_id: row.pipeline_id,
    sales_pipeline_id: row.sales_pipeline_id,
    name: row.name,
    text: row.text,
    stage: row.status === 'pending' ? row.stage : null,
    status: row.status,
    expected_close_date: plainDateOf(row.expected_close_date)!,
    close_date: plainDateOf(row.close_date)!,
    date: plainDateOf(row.date)!,
    amount,
    months: row.months,
    cost,
    ...dealTotals(amount, row.months, cost),
    commission_base: row.commission_base,
    commission_type: row.commission_type,
    commission: Number(row.commission),
    commission_percentage: Number(row.commission_percentage),
    reason_lost_id: row.reason_lost_id,
    deal_fields: dealFieldsOf(row.deal_fields ?? {}, definitions),
    has_deal_items: items.length > 0,
    deal_items: items,
    author: fullName(row.a_first_name, row.a_last_name),
    has_related_notes: row.has_related_notes,
    attachments: toAttachmentDtos(row.attachments),
    contact_info: {
      contact_name: fullName(row.c_first_name, row.c_last_name),
      company: row.c_company_name,
    },
    owner: {
      id: row.owner_id,
      name: fullName(row.o_first_name, row.o_last_name),
      email: row.o_email ?? '',
    },
    created_at: isoOf(row.created_at),
    modified_at: isoOf(row.modified_at),
    linked_contacts: linked,
  };
  if (row.status !== 'pending') dto.last_stage = row.last_stage;
  if (options.includeHistory) dto.previous_pipeline_stages = row.previous_pipeline_stages ?? {};
  return dto;
}

/**
 * Deals selected by a WHERE/ORDER/LIMIT tail over `d` and `c`, serialized. Selections by id are
 * prepared statements (planning this SELECT costs more than running it); an ordered page with a
 * LIMIT parameter (`customPlan`) is planned each time, since a generic plan cannot know the
 * limit and would build every row of the filter before cutting the page.
 */
export async function selectDeals(
  m: EntityManager,
  accountId: string,
  tail: string,
  params: unknown[],
  options: { includeHistory?: boolean; customPlan?: boolean } = {},
): Promise<Array<{ row: DealRow; dto: DealDto }>> {
  const text = `${DEAL_SELECT} ${tail}`;
  const rows: DealRow[] = options.customPlan ? await m.query(text, params) : await preparedQuery<DealRow>(m, text, params);
  const needsFields = rows.some((row) => row.deal_fields && Object.keys(row.deal_fields).length > 0);
  const definitions = needsFields ? await dealFieldDefinitions(m, accountId) : new Map<string, DealFieldDefinition>();
  return rows.map((row) => ({
    row,
    dto: toDealDto(row, definitions, options),
  }));
}
