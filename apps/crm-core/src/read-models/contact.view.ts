import type { ActionDto, ContactDto, CustomFieldValueDto } from '@crm/contracts';
import type { ContactRow } from './contact.repository';
import type { FieldDefinitionRow } from './fields.repository';
import { isoOf } from '../records/record-common';
import { fieldValues } from './fields.view';

/** The API (and webhook) shape of a contact. */
export function toContactDto(row: ContactRow, definitions: FieldDefinitionRow[]): ContactDto {
  const closed = Array.isArray(row.closed_sales) ? row.closed_sales : [];
  return {
    id: row.id,
    title: row.title,
    first_name: row.first_name,
    last_name: row.last_name,
    job_title: row.job_title,
    starred: row.starred,
    photo_url: row.photo_url,
    company_id: row.company_id ?? '',
    company_name: row.company_name,
    urls: row.urls,
    phones: row.phones,
    emails: row.emails,
    address_list: row.address_list,
    status: row.status,
    status_id: row.status_id,
    tags: row.tags,
    lead_source_id: row.lead_source_id ?? '',
    lead_source: row.lead_source ?? '',
    background: row.background,
    owner_id: row.owner_id,
    custom_fields: fieldValues(row.custom_fields ?? {}, definitions, 'custom_field') as CustomFieldValueDto[],
    letter: row.letter,
    pending_deal: row.pending_count > 0,
    total_pendings: Number(row.total_pendings),
    total_deals_count: row.total_deals_count,
    company_size: row.company_size,
    sales_closed_for: closed.map((sale) => sale.user_id),
    closed_sales: closed,
    google_contacts_data: row.google_contacts_data ?? { account_email: '', id: '', saved_at: 0 },
    created_at: isoOf(row.created_at),
    modified_at: isoOf(row.modified_at),
  };
}

/** Urgency groups of next actions: asap, dated, waiting. */
const urgencyOf = (action: ActionDto): number => (action.status === 'asap' ? 0 : action.status === 'waiting' ? 2 : 1);

/** Next actions, most urgent first: asap, then dated (overdue, today, future) by date and exact_time, then waiting. */
export function compareUrgency(a: ActionDto, b: ActionDto): number {
  const rankA = urgencyOf(a);
  const rankB = urgencyOf(b);
  if (rankA !== rankB) return rankA - rankB;
  const dateA = a.date ?? '9999-12-31';
  const dateB = b.date ?? '9999-12-31';
  if (dateA !== dateB) return dateA < dateB ? -1 : 1;
  // exact_time 0: no time (after the timed actions of that day).
  const timeA = a.exact_time || Number.MAX_SAFE_INTEGER;
  const timeB = b.exact_time || Number.MAX_SAFE_INTEGER;
  if (timeA !== timeB) return timeA - timeB;
  return a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : a.id < b.id ? -1 : 1;
}
