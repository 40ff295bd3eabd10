import { stringifyWithFragments } from '@crm/messaging';
import {
  contactDocument,
  HEAD_KEYS,
  isContactDocument,
  LIVE_KEYS,
  renderContactDocument,
  TAIL_KEYS,
  type ContactDocument,
} from './contact.document';
import type { ContactRow } from './contact.repository';
import { toContactDto } from './contact.view';
import type { FieldDefinitionRow } from './fields.repository';

const row: ContactRow = {
  id: 'c0000000000000000000000a',
  owner_id: 'u0000000000000000000000b',
  title: 'Ms',
  first_name: 'Ann "Q"',
  last_name: 'Lee\u2028',
  job_title: 'CTO',
  starred: true,
  photo_url: '',
  company_id: 'k0000000000000000000000c',
  company_name: 'Acme',
  urls: [{ type: 'website', value: 'https://acme.example' }],
  phones: [{ type: 'work', value: '+1 555' }],
  emails: [{ type: 'work', value: 'ann@acme.example' }],
  address_list: [],
  status_id: 's0000000000000000000000d',
  status: 'Lead',
  lead_source_id: null,
  lead_source: null,
  background: 'line one\nline two',
  custom_fields: { f0000000000000000000000e: 'blue' },
  closed_sales: [],
  google_contacts_data: { account_email: '', id: '', saved_at: 0 },
  letter: 'L',
  tags: ['b', 'a'],
  total_deals_count: 3,
  pending_count: 1,
  total_pendings: 1200.5,
  company_size: 7,
  doc_version: '3',
  created_at: new Date('2026-01-02T03:04:05.678Z'),
  modified_at: new Date('2026-02-03T04:05:06.789Z'),
} as ContactRow;

const definitions: FieldDefinitionRow[] = [{ id: 'f0000000000000000000000e', name: 'Colour', type: 'text', position: 0, choices: null }];

/** The document of `dto` as a read finds it, with these live counters (by default the contact's own). */
function documentOf(
  dto: ReturnType<typeof toContactDto>,
  live: { pending_deals_count: number; pending_deals_amount: number; deals_count: number; company_size: number } = {
    pending_deals_count: dto.pending_deal ? 1 : 0,
    pending_deals_amount: dto.total_pendings,
    deals_count: dto.total_deals_count,
    company_size: dto.company_size,
  },
): ContactDocument {
  const { head, tail } = renderContactDocument(dto);
  const document = contactDocument({
    id: dto.id,
    owner_id: dto.owner_id,
    company_id: dto.company_id,
    modified_at: dto.modified_at,
    head,
    tail,
    ...live,
  });
  document.company_size = live.company_size;
  return document;
}

describe('contact documents', () => {
  const dto = toContactDto(row, definitions);

  it('head, live counters and tail are every field of a contact, in its order', () => {
    expect([...HEAD_KEYS, ...LIVE_KEYS, ...TAIL_KEYS]).toEqual(Object.keys(dto));
  });

  it('a document spliced into a reply is byte for byte the contact rendered from its row', () => {
    const document = documentOf(dto);
    expect(stringifyWithFragments({ contact: document })).toBe(JSON.stringify({ contact: dto }));
    expect(JSON.stringify(document)).toBe(JSON.stringify(dto));
  });

  it('the live counters are the ones given, not the ones stored', () => {
    const live = documentOf(dto, { pending_deals_count: 2, pending_deals_amount: 99.5, deals_count: 4, company_size: 12 });
    expect(JSON.parse(stringifyWithFragments(live))).toMatchObject({
      pending_deal: true,
      total_pendings: 99.5,
      total_deals_count: 4,
      company_size: 12,
    });
  });

  it('reads every field as a ContactDto does; stored fields cannot be assigned', () => {
    const document = documentOf(dto);
    for (const key of Object.keys(dto) as Array<keyof typeof dto>) expect(document[key]).toEqual(dto[key]);
    expect(isContactDocument(document)).toBe(true);
    expect(isContactDocument(dto)).toBe(false);
    expect(() => {
      (document as unknown as Record<string, unknown>).first_name = 'x';
    }).toThrow(TypeError);
  });
});
