import { ErrorName, type ContactFieldsInput, type CustomFieldValueInput } from '@crm/contracts';
import {
  assertCanDelete,
  assertNamed,
  bulkIds,
  cascadeAfterId,
  closeSalesCycle,
  companySync,
  customFieldValues,
  derivedColumns,
  distinctTagNames,
  listOrder,
  nextSetUrl,
  pathId,
  planContactWrite,
  rangedColumn,
  requestedResources,
  sameState,
  type ContactState,
} from './contact.rules';

const CALLER = 'aaaaaaaaaaaaaaaaaaaaaaaa';
const OTHER_USER = 'bbbbbbbbbbbbbbbbbbbbbbbb';
const STATUS = 'cccccccccccccccccccccccc';
const COMPANY = 'dddddddddddddddddddddddd';
const LEAD_SOURCE = 'eeeeeeeeeeeeeeeeeeeeeeee';

const current: ContactState = {
  title: 'Dr',
  first_name: 'Ada',
  last_name: 'Lovelace',
  job_title: 'Analyst',
  starred: true,
  photo_url: 'https://ada.example/p.png',
  company_id: COMPANY,
  company_name: 'Engines',
  urls: [{ type: 'website', value: 'https://ada.example' }],
  phones: [{ type: 'work', value: '+44 20' }],
  emails: [{ type: 'work', value: 'ada@example.test' }],
  address_list: [{ address: '1 St', city: 'London', state: '', zip_code: '', country_code: 'GB', type: 'work' }],
  status_id: STATUS,
  lead_source_id: LEAD_SOURCE,
  background: 'notes',
  owner_id: OTHER_USER,
  custom_fields: { f1: 'x' },
  tag_ids: ['t1'],
};

const plan = (input: ContactFieldsInput, mode: 'create' | 'replace' | 'merge', from: ContactState | null = current) =>
  planContactWrite(input, mode === 'create' ? null : from, mode, CALLER);

describe('contact writes (decisions.md "Contacts", "Contact PUT")', () => {
  it('POST: absent fields take the defaults: lead status (filled in by the service), the caller as owner, no company', () => {
    const p = plan({ last_name: 'New' }, 'create');
    expect(p.state).toEqual({
      title: '',
      first_name: '',
      last_name: 'New',
      job_title: '',
      starred: false,
      photo_url: '',
      company_id: null,
      company_name: '',
      urls: [],
      phones: [],
      emails: [],
      address_list: [],
      status_id: '',
      lead_source_id: null,
      background: '',
      owner_id: CALLER,
      custom_fields: {},
      tag_ids: [],
    });
    expect(p).toMatchObject({ references: [], customFields: [], tags: [], company: { kind: 'none' } });
  });

  it('gives typed values the type other and addresses every key', () => {
    const p = plan({ last_name: 'X', phones: [{ value: '1' }], address_list: [{ city: 'Cork' }] } as ContactFieldsInput, 'create');
    expect(p.state.phones).toEqual([{ type: 'other', value: '1' }]);
    expect(p.state.address_list).toEqual([{ address: '', city: 'Cork', state: '', zip_code: '', country_code: '', type: 'other' }]);
  });

  it('PUT replaces every writable field: absent ones are cleared, status and owner take the create defaults', () => {
    const p = plan({ last_name: 'Lovelace' }, 'replace');
    expect(p.state).toMatchObject({
      title: '',
      first_name: '',
      starred: false,
      urls: [],
      lead_source_id: null,
      status_id: '',
      owner_id: CALLER,
      custom_fields: {},
      tag_ids: [],
    });
    expect(p).toMatchObject({ customFields: [], tags: [], company: { kind: 'none' } });
  });

  it('PATCH and PUT partial=true keep what is absent, tags and custom fields included', () => {
    const p = plan({ job_title: 'Countess' }, 'merge');
    expect(p.state).toEqual({ ...current, job_title: 'Countess' });
    expect(p).toMatchObject({ references: [], customFields: null, tags: null, company: { kind: 'keep' } });
  });

  it('a sent null clears a field (to its default) even when merging', () => {
    const p = plan({ title: null, starred: null, status_id: null, owner_id: null, tags: null, custom_fields: null }, 'merge');
    expect(p.state).toMatchObject({ title: '', starred: false, status_id: STATUS, owner_id: OTHER_USER });
    expect(p).toMatchObject({ tags: [], customFields: [] });
  });

  it('checks a status, owner or lead source only when the write changes it, lower-casing ids', () => {
    expect(plan({ status_id: STATUS.toUpperCase(), owner_id: OTHER_USER, lead_source_id: LEAD_SOURCE }, 'merge').references).toEqual([]);
    const p = plan({ status_id: 'F'.repeat(24), owner_id: CALLER, lead_source_id: 'A'.repeat(24) }, 'merge');
    expect(p.state).toMatchObject({ status_id: 'f'.repeat(24), owner_id: CALLER, lead_source_id: 'a'.repeat(24) });
    expect(p.references).toEqual([
      { table: 'statuses', id: 'f'.repeat(24), what: 'Status' },
      { table: 'users', id: CALLER, what: 'User' },
      { table: 'lead_sources', id: 'a'.repeat(24), what: 'Lead source' },
    ]);
  });

  it('links the company: company_id wins, a name matches or creates, ""/null unlinks, the same name in another case keeps it', () => {
    expect(plan({ company_id: COMPANY.toUpperCase(), company_name: 'Other' }, 'merge').company).toEqual({ kind: 'id', id: COMPANY });
    expect(plan({ company_name: 'Other' }, 'merge').company).toEqual({ kind: 'name', name: 'Other' });
    expect(plan({ company_name: 'ENGINES' }, 'merge').company).toEqual({ kind: 'keep' });
    expect(plan({ company_name: '' }, 'merge').company).toEqual({ kind: 'none' });
    expect(plan({ company_name: null }, 'merge').company).toEqual({ kind: 'none' });
    expect(plan({ company_id: null }, 'merge').company).toEqual({ kind: 'none' });
    expect(plan({ company_name: 'Engines' }, 'create').company).toEqual({ kind: 'name', name: 'Engines' });
    expect(plan({ last_name: 'L', company_name: 'Engines' }, 'replace').company).toEqual({ kind: 'keep' });
  });

  it('needs last_name or company_name', () => {
    expect(() => assertNamed({ last_name: '', company_name: '' })).toThrow(
      expect.objectContaining({
        errorName: ErrorName.InvalidRequestData,
        errors: { last_name: expect.any(String), company_name: expect.any(String) },
      }),
    );
    expect(() => assertNamed({ last_name: '', company_name: 'Engines' })).not.toThrow();
    expect(() => assertNamed({ last_name: 'L', company_name: '' })).not.toThrow();
  });

  it('an unchanged write is the same state (tags as a set)', () => {
    expect(sameState(current, { ...current, tag_ids: [...current.tag_ids] })).toBe(true);
    expect(sameState({ ...current, tag_ids: ['a', 'b'] }, { ...current, tag_ids: ['b', 'a'] })).toBe(true);
    expect(sameState(current, { ...current, starred: false })).toBe(false);
    expect(sameState(current, { ...current, tag_ids: [] })).toBe(false);
  });

  it('derives sort_name, letter and search_text from the state', () => {
    expect(derivedColumns({ ...current, last_name: '' })).toEqual({
      sort_name: 'engines ada',
      letter: 'e',
      search_text: ['ada', 'ada', 'engines', '+44 20', '4420', 'ada@example.test', 'https://ada.example'].join('\n'),
    });
  });
});

describe('custom field values', () => {
  const definitions = [
    { id: 'f1', type: 'number' as const, choices: null },
    { id: 'f2', type: 'text' as const, choices: null },
  ];
  const input = (id: string, value: unknown) => ({ custom_field: { id }, value }) as CustomFieldValueInput;

  it('stores values by field id; null removes one; ids any case', () => {
    expect(customFieldValues([input('F1', 3), input('f2', 'x'), input('f2', null)], definitions)).toEqual({ f1: 3 });
  });

  it('404 for an unknown field, 400 keyed by position for a bad value', () => {
    expect(() => customFieldValues([input('nope', 1)], definitions)).toThrow(
      expect.objectContaining({ errorName: ErrorName.ResourceNotFound }),
    );
    expect(() => customFieldValues([input('f2', 'x'), input('f1', 'abc')], definitions)).toThrow(
      expect.objectContaining({ errors: { 'custom_fields.1.value': expect.any(String) } }),
    );
    expect(() =>
      customFieldValues([{ company_field: { id: 'f1' }, value: 'abc' } as never], definitions, 'company_fields', 'company_field'),
    ).toThrow(expect.objectContaining({ errors: { 'company_fields.0.value': expect.any(String) } }));
  });
});

describe('tags, the sales cycle, deleting', () => {
  it('keeps one tag per name in any letter case (the last spelling sent)', () => {
    expect(distinctTagNames(['VIP', 'vip', 'Lead', 'ViP'])).toEqual(['ViP', 'Lead']);
  });

  it("close_sales_cycle keeps one entry per user: a repeat replaces the user's, moved last, closed now", () => {
    const now = new Date('2026-01-02T03:04:05.900Z');
    const before = [
      { user_id: CALLER, closed_at: 1, comment: 'old' },
      { user_id: OTHER_USER, closed_at: 2, comment: 'theirs' },
    ];
    expect(closeSalesCycle(before, CALLER, 'again', now)).toEqual([
      { user_id: OTHER_USER, closed_at: 2, comment: 'theirs' },
      { user_id: CALLER, closed_at: Math.floor(now.getTime() / 1000), comment: 'again' },
    ]);
    expect(closeSalesCycle([], CALLER, undefined, now)).toEqual([{ user_id: CALLER, closed_at: 1767323045, comment: '' }]);
  });

  it('deleting needs the delete_contacts permission, whatever the role', () => {
    expect(() => assertCanDelete(['delete_contacts'])).not.toThrow();
    expect(() => assertCanDelete([])).toThrow(expect.objectContaining({ errorName: ErrorName.NoPermission }));
    expect(() => assertCanDelete(undefined)).toThrow(expect.objectContaining({ errorName: ErrorName.NoPermission }));
  });

  it('bulk ids: distinct, lower case, at most 100', () => {
    expect(bulkIds(` ${COMPANY.toUpperCase()}, ${COMPANY},${CALLER}`)).toEqual([COMPANY, CALLER]);
    const many = Array.from({ length: 101 }, (_, i) => i.toString(16).padStart(24, '0')).join(',');
    expect(() => bulkIds(many)).toThrow(expect.objectContaining({ errors: { ids: expect.any(String) } }));
  });

  it('a path id that is not a 24-hex id names no record: 404', () => {
    expect(pathId(` ${COMPANY.toUpperCase()} `)).toBe(COMPANY);
    expect(() => pathId('123', 'Status')).toThrow(
      expect.objectContaining({ errorName: ErrorName.ResourceNotFound, message: 'Status not found' }),
    );
  });
});

describe('lists and the cascade', () => {
  it('orders by name, or newest first by a ranged created_at/modified_at without sort_by', () => {
    expect(listOrder(undefined, undefined, rangedColumn({}), 'name')).toEqual({ key: 'name', direction: 'asc' });
    expect(listOrder(undefined, undefined, rangedColumn({ since: '2026-01-01' }), 'name')).toEqual({
      key: 'created_at',
      direction: 'desc',
    });
    expect(listOrder(undefined, 'asc', rangedColumn({ date_filter: 'modified_at', until: '1' }), 'name')).toEqual({
      key: 'modified_at',
      direction: 'asc',
    });
    expect(listOrder(undefined, undefined, rangedColumn({ unmodified_since: '1' }), 'name')).toEqual({
      key: 'modified_at',
      direction: 'desc',
    });
    expect(listOrder('first_name', undefined, rangedColumn({ since: '1' }), 'name')).toEqual({ key: 'first_name', direction: 'asc' });
  });

  it('fields= names resources in canonical order', () => {
    expect(requestedResources('notes(all), deals(all)')).toEqual(['deals', 'notes']);
    expect(requestedResources(undefined)).toEqual([]);
  });

  it('the first batch is absent, empty or 0; any other last_id must be an id', () => {
    expect([undefined, '', ' 0 '].map(cascadeAfterId)).toEqual([null, null, null]);
    expect(cascadeAfterId(COMPANY.toUpperCase())).toBe(COMPANY);
    expect(() => cascadeAfterId('zz')).toThrow(expect.objectContaining({ errorName: ErrorName.ResourceNotFound }));
  });

  it('next_set_url repeats the query after the last id, null when nothing is left', () => {
    const origin = { base_url: 'https://api.example/api/v3', query: 'team=true' };
    expect(nextSetUrl(origin, 5, COMPANY)).toBe(`https://api.example/api/v3/contacts/cascade/${COMPANY}?team=true`);
    expect(nextSetUrl({ base_url: 'b', query: '' }, 5, COMPANY)).toBe(`b/contacts/cascade/${COMPANY}`);
    expect(nextSetUrl(origin, 0, COMPANY)).toBeNull();
  });
});

describe('company syncing (decisions.md "Syncing")', () => {
  it('gives the synced status only with syncing_status, and the synced tags only with syncing_tags', () => {
    const settings = { syncing_status: true, synced_status_id: STATUS, syncing_tags: true, synced_tags: ['VIP', 'Lead'] };
    expect(companySync(settings)).toEqual({ statusId: STATUS, tagNames: ['vip', 'lead'] });
    expect(companySync({ ...settings, syncing_status: false, syncing_tags: false })).toEqual({ statusId: null, tagNames: [] });
    expect(companySync({ ...settings, synced_status_id: null })).toEqual({ statusId: null, tagNames: ['vip', 'lead'] });
  });
});
