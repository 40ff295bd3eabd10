import 'reflect-metadata';
import { newId } from '@crm/common';
import {
  CascadeContactsRequest,
  CompanyIdRequest,
  ContactIdRequest,
  ContactTagRequest,
  CreateContactRequest,
  ErrorName,
  parseContract,
  PatchContactRequest,
  type Caller,
  type ProvisionAccountMessage,
} from '@crm/contracts';
import { runMigrations } from '@crm/database';
import { createTestDatabase, type TestDatabase } from '@crm/testing';
import type { DataSource } from 'typeorm';
import { AccountsRepository } from '../accounts/accounts.repository';
import { AccountsService } from '../accounts/accounts.service';
import { CompaniesRepository } from '../companies/companies.repository';
import { CompaniesService } from '../companies/companies.service';
import { FiltersRepository } from '../filters/filters.repository';
import { FiltersService } from '../filters/filters.service';
import { CrmCoreConfig } from '../config/crm-core.config';
import { crmDataSource } from '../database/crm-data-source';
import { SummaryService } from '../summary/summary.service';
import { SummaryRepository } from '../summary/summary.repository';
import { letterOf, searchTextOf, sortNameOf } from './contact-columns';
import { ContactTagsRepository } from './contact-tags.repository';
import { contactEventSiblings, loadContactDtos } from '../read-models';
import { ContactsRepository } from './contacts.repository';
import { ContactsService } from './contacts.service';

function provisionMessage(name: string): ProvisionAccountMessage {
  return {
    account: { id: newId(), name, region: 'us' },
    admin: {
      id: newId(),
      first_name: 'Ada',
      last_name: name,
      email: `${name.toLowerCase()}-${newId()}@example.test`,
      role: 'admin',
      account_rights: [],
      permissions: ['delete_contacts'],
    },
  };
}

interface OutboxRow {
  type: string;
  reason: string;
  record_id: string;
  contact_status_id: string | null;
  data: Record<string, unknown>;
}

describe('contacts (real PostgreSQL)', () => {
  let db: TestDatabase;
  let dataSource: DataSource;
  let contacts: ContactsService;
  let companies: CompaniesService;
  let acme: Caller;
  let other: Caller;

  beforeAll(async () => {
    db = await createTestDatabase('crm_contacts');
    const config = Object.assign(new CrmCoreConfig(), { DATABASE_URL: db.url });
    dataSource = crmDataSource(config);
    await runMigrations(dataSource);
    const accounts = new AccountsService(dataSource, new AccountsRepository(), config);
    const [a, b] = [provisionMessage('Acme'), provisionMessage('Other')];
    await accounts.provision(a);
    await accounts.provision(b);
    acme = { account_id: a.account.id, user_id: a.admin.id, role: 'admin', auth_method: 'api_key', scopes: ['crm'] };
    other = { account_id: b.account.id, user_id: b.admin.id, role: 'admin', auth_method: 'api_key', scopes: ['crm'] };
    contacts = new ContactsService(
      dataSource,
      new ContactsRepository(),
      new ContactTagsRepository(),
      new SummaryService(new SummaryRepository()),
      new FiltersService(dataSource, new FiltersRepository()),
    );
    companies = new CompaniesService(dataSource, new CompaniesRepository(), contacts);
  });

  afterAll(async () => {
    if (dataSource?.isInitialized) await dataSource.destroy();
    await db?.drop();
  });

  /** Outbox rows written after `seq`, in order. */
  const eventsAfter = async (seq: number): Promise<OutboxRow[]> =>
    dataSource.query('SELECT type, reason, record_id, contact_status_id, data FROM crm.outbox WHERE seq > $1 ORDER BY seq', [seq]);
  const lastSeq = async (): Promise<number> => Number((await dataSource.query('SELECT coalesce(max(seq), 0) AS s FROM crm.outbox'))[0].s);

  it('writes created, updated and deleted events in the spec payload, in the same transaction', async () => {
    const seq = await lastSeq();
    const created = await contacts.create(
      acme,
      parseContract(CreateContactRequest, { first_name: 'Eve', last_name: 'Event', company_name: 'Outbox Ltd' }),
    );
    const id = created.contact.id;
    let events = await eventsAfter(seq);
    expect(events.map((e) => `${e.type}.${e.reason}`)).toEqual(['company.created', 'contact.created']);
    const contactEvent = events[1];
    expect(contactEvent).toMatchObject({ record_id: id, contact_status_id: created.contact.status_id });
    expect(Object.keys(contactEvent.data).sort()).toEqual([
      'contact',
      'most_urgent_action',
      'next_action',
      'next_actions',
      'queued_actions',
    ]);
    expect(contactEvent.data.contact).toEqual(created.contact);
    // The company's event is written once the contact is linked: it shows the company with it.
    expect(events[0].data.company).toMatchObject({ name: 'Outbox Ltd', contacts_count: 1, contacts: [{ contact: { id } }] });

    const seq2 = await lastSeq();
    await contacts.patch(acme, parseContract(PatchContactRequest, { contact_id: id, job_title: 'Auditor' }));
    // An unchanged write emits nothing.
    await contacts.patch(acme, parseContract(PatchContactRequest, { contact_id: id, job_title: 'Auditor' }));
    await contacts.assignTag(acme, parseContract(ContactTagRequest, { contact_id: id, tag_name: 'audited' }));
    await contacts.assignTag(acme, parseContract(ContactTagRequest, { contact_id: id, tag_name: 'AUDITED' }));
    events = await eventsAfter(seq2);
    expect(events.map((e) => `${e.type}.${e.reason}`)).toEqual(['contact.updated', 'contact.updated']);
    expect((events[1].data.contact as { tags: string[] }).tags).toEqual(['audited']);

    const seq3 = await lastSeq();
    await contacts.delete(acme, parseContract(ContactIdRequest, { contact_id: id }));
    events = await eventsAfter(seq3);
    expect(events).toEqual([
      { type: 'contact', reason: 'deleted', record_id: id, contact_status_id: created.contact.status_id, data: { id } },
    ]);
  });

  it('leaves no trace of a write that fails', async () => {
    const seq = await lastSeq();
    await expect(
      contacts.create(acme, parseContract(CreateContactRequest, { last_name: 'Ghost', tags: ['rolled-back'], company_id: newId() })),
    ).rejects.toMatchObject({
      errorName: ErrorName.ResourceNotFound,
    });
    await expect(
      contacts.create(acme, parseContract(CreateContactRequest, { last_name: 'Ghost', company_name: 'Ghost Co', owner_id: other.user_id })),
    ).rejects.toMatchObject({
      errorName: ErrorName.ResourceNotFound,
    });
    expect(await eventsAfter(seq)).toEqual([]);
    expect(await dataSource.query("SELECT 1 FROM crm.tags WHERE name = 'rolled-back'")).toEqual([]);
    expect(await dataSource.query("SELECT 1 FROM crm.companies WHERE name = 'Ghost Co'")).toEqual([]);
  });

  it('creates one company when two contacts name a new one at once', async () => {
    const results = await Promise.all([
      contacts.create(acme, parseContract(CreateContactRequest, { last_name: 'Racer A', company_name: 'Photo Finish' })),
      contacts.create(acme, parseContract(CreateContactRequest, { last_name: 'Racer B', company_name: 'PHOTO FINISH' })),
    ]);
    expect(results[0].contact.company_id).toBe(results[1].contact.company_id);
    const [{ n }] = await dataSource.query(
      "SELECT count(*)::int AS n FROM crm.companies WHERE account_id = $1 AND lower(name) = 'photo finish'",
      [acme.account_id],
    );
    expect(n).toBe(1);
    const company = await companies.get(acme, parseContract(CompanyIdRequest, { company_id: results[0].contact.company_id }));
    expect(company.company.contacts_count).toBe(2);
  });

  it('picks the most urgent next action over every assignee for contact events', async () => {
    const { contact } = await contacts.create(acme, parseContract(CreateContactRequest, { last_name: 'Urgent' }));
    const insert = (assignee: string, status: string, date: string | null, exactTime: number | null = null) =>
      dataSource.query(
        'INSERT INTO crm.actions (id, account_id, contact_id, assignee_id, text, status, date, exact_time) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)',
        [newId(), acme.account_id, contact.id, assignee, status, status, date, exactTime],
      );
    await insert(newId(), 'waiting', null);
    await insert(newId(), 'date', '2099-01-01');
    await insert(acme.user_id, 'date_time', '2099-01-01', 4_070_908_800);
    await insert(acme.user_id, 'queued_with_date', '2098-06-01');
    let siblings = await contactEventSiblings(dataSource.manager, acme.account_id, contact.id);
    expect(siblings.most_urgent_action).toMatchObject({ status: 'date_time', date: '2099-01-01' });
    expect(siblings.next_action).toMatchObject({ assignee_id: acme.user_id, status: 'date_time' });
    expect(siblings.queued_actions).toHaveLength(1);
    expect(siblings.next_actions).toHaveLength(3);
    await insert(newId(), 'date', '2001-01-01');
    siblings = await contactEventSiblings(dataSource.manager, acme.account_id, contact.id);
    expect(siblings.most_urgent_action).toMatchObject({ status: 'date', date: '2001-01-01' });
    // asap comes before every dated action, overdue ones included.
    await insert(newId(), 'asap', null);
    siblings = await contactEventSiblings(dataSource.manager, acme.account_id, contact.id);
    expect(siblings.most_urgent_action).toMatchObject({ status: 'asap', exact_time: 0 });
    expect(siblings.next_actions.map((a) => a.status)).toEqual(['date_time', 'asap', 'date', 'date', 'waiting']);
    const wrapper = await contacts.get(acme, parseContract(ContactIdRequest, { contact_id: contact.id }));
    expect(wrapper.next_action_conflicts.map((a) => a.date)).toEqual(['2098-06-01']);
  });

  it('loads contacts of the account only, in batches', async () => {
    const mine = await contacts.create(acme, parseContract(CreateContactRequest, { last_name: 'Batch' }));
    const theirs = await contacts.create(other, parseContract(CreateContactRequest, { last_name: 'Batch' }));
    const loaded = await loadContactDtos(dataSource.manager, acme.account_id, [mine.contact.id, theirs.contact.id, newId()]);
    expect([...loaded.keys()]).toEqual([mine.contact.id]);
  });

  it('pages the cascade by (sort_name, id) through every batch (the index and items_left: contacts.repository.medium-spec.ts)', async () => {
    const caller: Caller = { ...acme };
    const rows = Array.from({ length: 3000 }, (_, i) => {
      const parts = {
        first_name: `F${i}`,
        last_name: `Seed ${String(i % 1000).padStart(4, '0')}`,
        company_name: '',
        phones: [],
        emails: [],
        urls: [],
      };
      const sortName = sortNameOf(parts);
      return [newId(), parts.first_name, parts.last_name, sortName, letterOf(sortName), searchTextOf(parts)];
    });
    const [lead] = await dataSource.query('SELECT id FROM crm.statuses WHERE account_id = $1 AND is_lead', [acme.account_id]);
    await dataSource.query(
      `INSERT INTO crm.contacts (id, account_id, owner_id, status_id, first_name, last_name, sort_name, letter, search_text)
       SELECT v.id, $1, $2, $3, v.f, v.l, v.s, v.le, v.t FROM unnest($4::varchar[], $5::varchar[], $6::varchar[], $7::varchar[], $8::varchar[], $9::text[]) AS v(id, f, l, s, le, t)`,
      [acme.account_id, acme.user_id, lead.id, ...[0, 1, 2, 3, 4, 5].map((k) => rows.map((r) => r[k]))],
    );
    await dataSource.query('ANALYZE crm.contacts');
    const seen = new Set<string>();
    let lastId: string | undefined = '0';
    let previous = '';
    let batches = 0;
    for (;;) {
      const batch = await contacts.cascade(caller, parseContract(CascadeContactsRequest, { last_id: lastId }));
      batches += 1;
      for (const w of batch.contacts) {
        const [{ sort_name }] = await dataSource.query('SELECT sort_name FROM crm.contacts WHERE id = $1', [w.contact.id]);
        expect(`${sort_name}\u0000${w.contact.id}` > previous).toBe(true);
        previous = `${sort_name}\u0000${w.contact.id}`;
        seen.add(w.contact.id);
      }
      if (batch.next_set_url === null) break;
      expect(batch.next_set_url).toBe(`/contacts/cascade/${batch.contacts[99].contact.id}`);
      lastId = batch.contacts[99].contact.id;
    }
    const [{ n }] = await dataSource.query(
      'SELECT count(*)::int AS n FROM crm.contacts WHERE account_id = $1 AND owner_id = $2 AND deleted_at IS NULL',
      [acme.account_id, acme.user_id],
    );
    expect(seen.size).toBe(n);
    expect(batches).toBe(Math.ceil(n / 100));
  });
});
