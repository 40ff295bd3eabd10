import type { DealDto, DealFieldValueDto, DealItemDto, LinkedContactDto } from '@crm/contracts';
import { toAttachmentDtos } from '../records/attachment.view';
import { fullName, isoOf, plainDateOf } from '../records/record-common';
import { dealTotals, money, type DealFieldDefinition } from './deal.rules';
import type { DealRow } from './deals.repository';

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
    predefined_item_id: i.predefined_item_id ?? '',
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
    // A won or lost deal's stage is 0 (OnePageCRM's empty integer, never null); last_stage keeps where it closed from.
    stage: row.status === 'pending' ? (row.stage ?? 0) : 0,
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
    reason_lost_id: row.reason_lost_id ?? '',
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
