import { newId } from '@crm/common';
import { createTestDatabase } from '@crm/testing';
import type { DataSource } from 'typeorm';
import { openMediumDatabase, type TestAccount } from '../contacts/contacts.medium-fixture';
import { COMPANY_CONTACTS_CAP, COMPANY_LIST_CONTACTS_CAP, CONTACT_RECORDS_CAP, QUEUED_ACTIONS_CAP } from './caps';
import { loadCompanyDtos } from './company.read-model';
import { ContactsRepository } from '../contacts/contacts.repository';
import { contactWrapperPage, contactWrappers, LIST_ENTRIES, loadContactWrappers } from './contact.read-model';
import { contactActionsOf, notesOfContacts } from './records.read-model';

/** The read models' bounds against the real PostgreSQL: each embedded array stops at its cap, in its order. */
describe('read models (real PostgreSQL)', () => {
  let dataSource: DataSource;
  let close: () => Promise<void>;
  let acme: TestAccount;
  let companyId: string;
  let contactIds: string[];
  const q = (text: string, values: unknown[]) => dataSource.query(text, values);

  beforeAll(async () => {
    let accounts: [TestAccount, TestAccount];
    ({ dataSource, accounts, close } = await openMediumDatabase(await createTestDatabase('crm_read_models')));
    [acme] = accounts;
    companyId = newId();
    await q('INSERT INTO crm.companies (id, account_id, name) VALUES ($1, $2, $3)', [companyId, acme.accountId, 'Big']);
    const [{ id: statusId }] = await q('SELECT id FROM crm.statuses WHERE account_id = $1 ORDER BY is_lead DESC LIMIT 1', [acme.accountId]);
    // One more contact than the company embeds, named so that the name order differs from the id order.
    const n = COMPANY_CONTACTS_CAP + 1;
    contactIds = Array.from({ length: n }, () => newId());
    await q(
      `INSERT INTO crm.contacts (id, account_id, owner_id, status_id, last_name, company_id, company_name, sort_name, letter)
       SELECT id, $1, $2, $3, 'n' || lpad((1000 - i)::text, 4, '0'), $4, 'Big', 'n' || lpad((1000 - i)::text, 4, '0'), 'n'
       FROM unnest($5::varchar[]) WITH ORDINALITY AS v(id, i)`,
      [acme.accountId, acme.userId, statusId, companyId, contactIds],
    );
  });

  afterAll(async () => close?.());

  it('a company embeds its first contacts by name up to the cap, and counts them all', async () => {
    const company = (
      await loadCompanyDtos(dataSource.manager, acme.accountId, [companyId], { withContacts: true, viewerId: acme.userId })
    ).get(companyId)!;
    expect(company.contacts_count).toBe(COMPANY_CONTACTS_CAP + 1);
    expect(company.contacts).toHaveLength(COMPANY_CONTACTS_CAP);
    // last names count down with the insert order: the name order is the reverse of it
    expect(company.contacts![0].contact.id).toBe(contactIds[contactIds.length - 1]);
    expect(company.contacts![0].contact.company_size).toBe(COMPANY_CONTACTS_CAP + 1);
    expect(company.contacts!.map((w) => w.contact.last_name)).toEqual([...company.contacts!.map((w) => w.contact.last_name)].sort());
  });

  it('a company list entry embeds its first contacts by name up to the smaller list cap', async () => {
    const entry = (
      await loadCompanyDtos(dataSource.manager, acme.accountId, [companyId], {
        withContacts: true,
        viewerId: acme.userId,
        contactsCap: COMPANY_LIST_CONTACTS_CAP,
      })
    ).get(companyId)!;
    expect(entry.contacts_count).toBe(COMPANY_CONTACTS_CAP + 1);
    expect(entry.contacts!.map((w) => w.contact.id)).toEqual(contactIds.slice(-COMPANY_LIST_CONTACTS_CAP).reverse());
  });

  it('queued actions stop at the cap (queue order); date conflicts are found past it', async () => {
    const contactId = contactIds[0];
    await q(
      `INSERT INTO crm.actions (id, account_id, contact_id, assignee_id, text, status, date, position)
       VALUES ($1, $2, $3, $4, 'next', 'date', '2030-06-01', 0)`,
      [newId(), acme.accountId, contactId, acme.userId],
    );
    // 30 queued actions: positions 1..30; only the last one is dated before the next action.
    for (let i = 1; i <= QUEUED_ACTIONS_CAP + 5; i += 1)
      await q(
        `INSERT INTO crm.actions (id, account_id, contact_id, assignee_id, text, status, date, position)
         VALUES ($1, $2, $3, $4, $5, 'queued_with_date', $6, $7)`,
        [newId(), acme.accountId, contactId, acme.userId, `q${i}`, i === QUEUED_ACTIONS_CAP + 5 ? '2030-01-01' : '2031-01-01', i],
      );
    const parts = (await contactActionsOf(dataSource.manager, acme.accountId, acme.userId, [contactId])).get(contactId)!;
    expect(parts.next_action?.text).toBe('next');
    expect(parts.queued_actions.map((a) => a.text)).toEqual(Array.from({ length: QUEUED_ACTIONS_CAP }, (_, i) => `q${i + 1}`));
    expect(parts.next_action_conflicts.map((a) => a.text)).toEqual([`q${QUEUED_ACTIONS_CAP + 5}`]);
    const [wrapper] = await loadContactWrappers(dataSource.manager, acme.accountId, [contactId], null);
    expect(wrapper.queued_actions).toHaveLength(QUEUED_ACTIONS_CAP);
  });

  it('fields=notes(all) holds the newest notes up to the cap per contact', async () => {
    const [a, b] = contactIds;
    for (let i = 1; i <= CONTACT_RECORDS_CAP + 3; i += 1)
      await q(`INSERT INTO crm.notes (id, account_id, contact_id, author_id, text, date) VALUES ($1, $2, $3, $4, $5, $6)`, [
        newId(),
        acme.accountId,
        a,
        acme.userId,
        `n${i}`,
        `2026-01-${String(i).padStart(2, '0')}`,
      ]);
    await q(`INSERT INTO crm.notes (id, account_id, contact_id, author_id, text, date) VALUES ($1, $2, $3, $4, 'only', '2026-02-01')`, [
      newId(),
      acme.accountId,
      b,
      acme.userId,
    ]);
    const notes = await notesOfContacts(dataSource.manager, acme.accountId, [a, b, contactIds[2]]);
    expect(notes.get(a)!.map((e) => e.note.text)).toEqual(
      Array.from({ length: CONTACT_RECORDS_CAP }, (_, i) => `n${CONTACT_RECORDS_CAP + 3 - i}`),
    );
    expect(notes.get(b)!.map((e) => e.note.text)).toEqual(['only']);
    expect(notes.has(contactIds[2])).toBe(false);
  });
  it("a company holds its pending deals once: its contacts' wrappers show it with an empty pending_deals", async () => {
    const [{ id: pipelineId }] = await q('SELECT id FROM crm.pipelines WHERE account_id = $1 LIMIT 1', [acme.accountId]);
    const dealId = newId();
    await q(
      `INSERT INTO crm.deals (id, account_id, contact_id, owner_id, author_id, pipeline_id, sales_pipeline_id, name, status, stage,
                              expected_close_date, close_date, date)
       VALUES ($1, $2, $3, $4, $4, $5, $5, 'Open', 'pending', 10, current_date, current_date, current_date)`,
      [dealId, acme.accountId, contactIds[0], acme.userId, pipelineId],
    );
    const company = (
      await loadCompanyDtos(dataSource.manager, acme.accountId, [companyId], { withContacts: true, viewerId: acme.userId })
    ).get(companyId)!;
    expect(company.pending_deals.map((e) => e.deal.id)).toEqual([dealId]);
    expect(company.contacts![0].company).toMatchObject({ id: companyId, pending_deals_count: 1, pending_deals: [] });
    const [wrapper] = await loadContactWrappers(dataSource.manager, acme.accountId, [contactIds[0]], acme.userId);
    expect(wrapper.company!.pending_deals.map((e) => e.deal.id)).toEqual([dealId]);
    await q('DELETE FROM crm.deals WHERE id = $1', [dealId]);
  });
  it('one statement reads the same wrappers as the parts read one by one (every kind of part)', async () => {
    const [first, second] = contactIds.slice(-2).reverse();
    const loner = newId();
    const [{ id: statusId }] = await q('SELECT id FROM crm.statuses WHERE account_id = $1 ORDER BY is_lead DESC LIMIT 1', [acme.accountId]);
    const leadSourceId = newId();
    await q('INSERT INTO crm.lead_sources (id, account_id, text) VALUES ($1, $2, $3)', [leadSourceId, acme.accountId, 'Fair']);
    const [customField, companyField] = [newId(), newId()];
    await q(
      `INSERT INTO crm.fields (id, account_id, field_set, name, type, position, choices)
       VALUES ($1, $3, 'custom_fields', 'Size', 'select_box', 1, ARRAY['S', 'M']), ($2, $3, 'company_fields', 'Region', 'text', 1, NULL)`,
      [customField, companyField, acme.accountId],
    );
    await q(`UPDATE crm.companies SET company_fields = $2, address = '{"city":"Cork"}' WHERE id = $1`, [
      companyId,
      JSON.stringify({ [companyField]: 'EMEA' }),
    ]);
    // Timestamps with microseconds: both ways must cut them to the same millisecond.
    await q(
      `UPDATE crm.contacts SET custom_fields = $2, lead_source_id = $3, created_at = '2026-01-02 03:04:05.678912+00',
              modified_at = '2026-01-02 03:04:05.999999+00', urls = '[{"type":"website","value":"https://example.com"}]'
       WHERE id = $1`,
      [first, JSON.stringify({ [customField]: 'M' }), leadSourceId],
    );
    await q(
      `INSERT INTO crm.contacts (id, account_id, owner_id, status_id, last_name, sort_name, letter) VALUES ($1, $2, $3, $4, 'Loner', 'loner', 'l')`,
      [loner, acme.accountId, acme.userId, statusId],
    );
    await q(
      `INSERT INTO crm.actions (id, account_id, contact_id, assignee_id, text, status, date, exact_time, position)
       VALUES ($1, $4, $5, $6, 'call', 'date_time', '2030-02-03', 1896000000, 0),
              ($2, $4, $5, $6, 'later', 'queued_with_date', '2030-01-01', NULL, 1),
              ($3, $4, $7, $6, 'wait', 'waiting', NULL, NULL, 0)`,
      [newId(), newId(), newId(), acme.accountId, first, acme.userId, loner],
    );
    // The company's pending deals (read by a second statement, for companies whose counter has some), one with field values, an item
    // and a linked contact; a won deal, not shown.
    const [{ id: pipelineId }] = await q('SELECT id FROM crm.pipelines WHERE account_id = $1 LIMIT 1', [acme.accountId]);
    const [rich, plain, won, dealField] = [newId(), newId(), newId(), newId()];
    await q(
      `INSERT INTO crm.fields (id, account_id, field_set, name, type, position) VALUES ($1, $2, 'deal_fields', 'Source', 'text', 1)`,
      [dealField, acme.accountId],
    );
    await q(
      `INSERT INTO crm.deals (id, account_id, contact_id, owner_id, author_id, pipeline_id, sales_pipeline_id, name, text, status, stage,
                              expected_close_date, close_date, date, amount, months, cost, deal_fields, created_at, modified_at)
       VALUES ($1, $4, $5, $7, $7, $8, $8, 'Rich', 'a *bold* deal', 'pending', 25, '2030-03-01', '2030-03-01', '2030-02-01', 1234.56, 3, 10.5,
               $9, '2026-01-02 03:04:05.678912+00', '2026-01-03 03:04:05.999999+00'),
              ($2, $4, $6, $7, $7, $8, $8, 'Plain', '', 'pending', 10, '2030-03-01', '2030-03-01', '2030-02-02', 100, 1, 0, '{}', now(), now()),
              ($3, $4, $6, $7, $7, $8, $8, 'Won', '', 'won', NULL, '2030-03-01', '2030-03-01', '2030-02-03', 100, 1, 0, '{}', now(), now())`,
      [rich, plain, won, acme.accountId, first, second, acme.userId, pipelineId, JSON.stringify({ [dealField]: 'web' })],
    );
    await q(
      `INSERT INTO crm.deal_items (id, account_id, deal_id, name, cost, price, qty, created_at) VALUES ($1, $2, $3, 'Seat', 1.25, 9.99, 3, '2026-01-02 03:04:05.123456+00')`,
      [newId(), acme.accountId, rich],
    );
    await q('INSERT INTO crm.deal_contacts (deal_id, contact_id, account_id) VALUES ($1, $2, $3)', [rich, loner, acme.accountId]);
    const ids = [first, loner, second, newId()];
    const seenByViewer = await loadContactWrappers(dataSource.manager, acme.accountId, ids, acme.userId);
    // Without a viewer each contact is seen by its owner (here the same user), read part by part.
    const seenByOwner = await contactWrappers(dataSource.manager, acme.accountId, ids, null, new Map(), true);
    expect(seenByViewer).toEqual(seenByOwner);
    expect(seenByViewer.map((w) => w.contact.id)).toEqual([first, loner, second]);
    const [wrapper] = seenByViewer;
    expect(wrapper.contact).toMatchObject({
      created_at: '2026-01-02T03:04:05.678Z',
      modified_at: '2026-01-02T03:04:05.999Z',
      lead_source: 'Fair',
      custom_fields: [{ custom_field: { id: customField, name: 'Size', type: 'select_box', choices: ['S', 'M'] }, value: 'M' }],
    });
    expect(wrapper.next_action).toMatchObject({ text: 'call', exact_time: 1896000000, date: '2030-02-03' });
    expect(wrapper.company).toMatchObject({ id: companyId, address: { city: 'Cork' }, company_fields: [{ value: 'EMEA' }] });
    // Newest date first; the won deal not among them.
    expect(wrapper.company!.pending_deals.map((e) => e.deal.id)).toEqual([plain, rich]);
    expect(wrapper.company!.pending_deals[1].deal).toMatchObject({
      amount: 1234.56,
      months: 3,
      cost: 10.5,
      stage: 25,
      date: '2030-02-01',
      created_at: '2026-01-02T03:04:05.678Z',
      modified_at: '2026-01-03T03:04:05.999Z',
      deal_fields: [{ deal_field: { id: dealField, name: 'Source' }, value: 'web' }],
      deal_items: [{ name: 'Seat', price: 9.99, qty: 3, created_at: '2026-01-02T03:04:05.123Z' }],
      linked_contacts: [{ id: loner }],
    });
    expect(seenByViewer[2].company!.pending_deals).toEqual(wrapper.company!.pending_deals);
    // A list page (its ids, total and wrappers in one statement) gives the same wrappers as its
    // contacts read part by part.
    const contacts = new ContactsRepository();
    const page = contacts.page(contacts.filter(acme.accountId, acme.userId, {}, null), { key: 'name', direction: 'asc' }, 1, 100);
    const listed = await contactWrapperPage(dataSource.manager, acme.accountId, page, acme.userId);
    expect(listed.ids).toEqual(expect.arrayContaining([first, loner, second]));
    expect(listed.wrappers).toEqual(
      await contactWrappers(dataSource.manager, acme.accountId, listed.ids, null, new Map(), LIST_ENTRIES.companyContacts),
    );
    expect(listed.wrappers.find((w) => w.contact.id === first)!.company!.pending_deals).toEqual(wrapper.company!.pending_deals);
    expect(wrapper.company!.contacts!.map((c) => c.contact.id)).toEqual(contactIds.slice(-3).reverse());
    expect(seenByViewer[1]).toMatchObject({ company: null, next_action: { text: 'wait', date: '', exact_time: 0 } });
    // List entries: no company contacts, the same either way.
    expect(await loadContactWrappers(dataSource.manager, acme.accountId, ids, acme.userId, { companyContacts: false })).toEqual(
      await contactWrappers(dataSource.manager, acme.accountId, ids, null, new Map(), false),
    );
    await q('DELETE FROM crm.deals WHERE id = ANY($1)', [[rich, plain, won]]);
    await q('DELETE FROM crm.fields WHERE id = $1', [dealField]);
  });
});
