import { newId } from '@crm/common';
import type { ContactDto, ContactWrapperDto } from '@crm/contracts';
import { stringifyWithFragments } from '@crm/messaging';
import { createTestDatabase } from '@crm/testing';
import pino from 'pino';
import { Registry } from 'prom-client';
import type { DataSource, EntityManager } from 'typeorm';
import { openMediumDatabase, type TestAccount } from '../contacts/contacts.medium-fixture';
import { ContactsRepository } from '../contacts/contacts.repository';
import { DOCUMENT_COLUMNS, NOT_DOCUMENT_COLUMNS } from '../migrations/1764800800000-contact-documents';
import { STREAM_TAG_COLUMNS } from '../migrations/1764801100000-stream-tag-counters';
import { ContactDocumentProjector } from './contact-documents.projector';
import { ContactDocumentMetrics } from './contact-documents.metrics';
import { contactDocumentBacklog, refreshContactDocuments, takeQueuedContacts } from './contact-documents.repository';
import { isContactDocument } from './contact.document';
import { contactWrapperPage, LIST_ENTRIES, loadContactWrappers } from './contact.read-model';

/**
 * Contact documents (migration 1764800800000) against the real PostgreSQL: a wrapper read with a
 * viewer splices the contact's stored document when it is current, and must then be the same JSON
 * as the wrapper read without one (each contact as its owner sees it, never from documents: the
 * oracle). Every source of change of what a document shows (the contact's columns, its tags, the
 * texts of statuses, lead sources and tags, the custom field definitions) must make the document
 * not current until the projector renders it again; the live counters (deals, company size) and
 * the columns no document shows must not.
 */
describe('contact documents (real PostgreSQL)', () => {
  let dataSource: DataSource;
  let close: () => Promise<void>;
  let acme: TestAccount;
  let other: TestAccount;
  let projector: ContactDocumentProjector;
  /** A second user of acme (the fixture provisions the admin only). */
  let colleagueId: string;
  let leadStatusId: string;
  let otherStatusId: string;
  let pipelineId: string;
  let sizeFieldId: string;
  let otherAccountContactIds: string[];
  const q = <T = Record<string, unknown>>(text: string, values: unknown[] = []): Promise<T[]> => dataSource.query(text, values);
  const db = () => dataSource.manager;

  /** A wrapper list as a reply carries it: documents spliced as their text. */
  const spliced = (value: unknown) => JSON.parse(stringifyWithFragments(value)) as ContactWrapperDto[];
  /** A wrapper list serialized by plain JSON.stringify (documents through their toJSON). */
  const plain = (value: unknown) => JSON.parse(JSON.stringify(value)) as ContactWrapperDto[];

  /**
   * The wrappers of `ids` as `viewerId` reads them, checked against the oracle (the same ids read
   * without a viewer): as a reply splices them, as plain JSON, and field by field as properties.
   */
  async function readChecked(ids: string[], viewerId: string, options?: typeof LIST_ENTRIES): Promise<ContactWrapperDto[]> {
    const read = await loadContactWrappers(db(), acme.accountId, ids, viewerId, options);
    const oracle = plain(await loadContactWrappers(db(), acme.accountId, ids, null, options));
    expect(spliced(read)).toEqual(oracle);
    expect(plain(read)).toEqual(oracle);
    read.forEach((wrapper, i) => expectSameFields(wrapper.contact, oracle[i].contact));
    return read;
  }

  /** A contact (a document or a plain object) read field by field equals the oracle's contact. */
  function expectSameFields(contact: ContactDto, expected: ContactDto): void {
    const fields = Object.fromEntries(Object.keys(expected).map((key) => [key, contact[key as keyof ContactDto]]));
    expect(plain([fields])[0]).toEqual(expected);
  }

  /** Runs the projector until it has nothing left; the queue and the sweeps are then empty. Returns the documents stored. */
  async function project(): Promise<number> {
    let stored = 0;
    for (let round = 0; round < 10; round += 1) {
      const n = await projector.runOnce();
      stored += n;
      if (n === 0) {
        expect(await pending()).toEqual({ queued: 0, sweeps: 0 });
        return stored;
      }
    }
    throw new Error('the projector still stored documents after 10 runs');
  }

  async function pending(): Promise<{ queued: number; sweeps: number }> {
    const [row] = await q<{ queued: number; sweeps: number }>(
      `SELECT (SELECT count(*)::int FROM crm.contact_document_queue) AS queued, (SELECT count(*)::int FROM crm.contact_document_sweeps) AS sweeps`,
    );
    return row;
  }

  /** The contact's doc_version and whether its stored document is current. */
  async function documentState(contactId: string): Promise<{ doc_version: number; current: boolean }> {
    const [row] = await q<{ doc_version: number; current: boolean }>(
      `SELECT c.doc_version::int AS doc_version,
              coalesce(d.doc_version = c.doc_version AND d.epoch = coalesce((SELECT e.epoch FROM crm.document_epochs e WHERE e.account_id = c.account_id), 0), false) AS current
       FROM crm.contacts c LEFT JOIN crm.contact_documents d ON d.contact_id = c.id WHERE c.id = $1`,
      [contactId],
    );
    return row;
  }

  /** The account's document epoch (0 before its first bump) and whether a sweep of it is pending. */
  async function epochOf(accountId: string): Promise<{ epoch: number; sweep: boolean }> {
    const [row] = await q<{ epoch: number; sweep: boolean }>(
      `SELECT coalesce((SELECT epoch::int FROM crm.document_epochs WHERE account_id = $1), 0) AS epoch,
              EXISTS (SELECT 1 FROM crm.contact_document_sweeps WHERE account_id = $1) AS sweep`,
      [accountId],
    );
    return row;
  }

  /** A new contact of acme owned by its admin, named so that it comes first in the name order. */
  async function newContact(columns: Record<string, unknown> = {}): Promise<string> {
    const id = newId();
    const row: Record<string, unknown> = {
      id,
      account_id: acme.accountId,
      owner_id: acme.userId,
      status_id: leadStatusId,
      first_name: 'Ada',
      last_name: `a-${id}`,
      sort_name: `a-${id}`,
      letter: 'a',
      ...columns,
    };
    const keys = Object.keys(row);
    await q(
      `INSERT INTO crm.contacts (${keys.join(', ')}) VALUES (${keys.map((_, i) => `$${i + 1}`).join(', ')})`,
      keys.map((key) => row[key]),
    );
    return id;
  }

  async function newTag(name: string): Promise<string> {
    const id = newId();
    await q('INSERT INTO crm.tags (id, account_id, name) VALUES ($1, $2, $3)', [id, acme.accountId, name]);
    return id;
  }

  async function tagContact(contactId: string, tagId: string): Promise<void> {
    await q('INSERT INTO crm.contact_tags (contact_id, tag_id, account_id) VALUES ($1, $2, $3)', [contactId, tagId, acme.accountId]);
  }

  interface Change {
    contactId: string;
    /** The one change (it may check what the triggers did). */
    change: () => Promise<unknown>;
    /** Whether the change leaves the stored document current (it changes nothing a document stores). */
    documentKept?: boolean;
    /** Who reads after the change (default the admin, the contact's owner before it). */
    viewerAfter?: string;
    /** What the read shows after the projector ran. */
    shows: (contact: ContactDto) => void;
  }

  /**
   * The contact's document is current and read; then ONE change; the read right after it equals the
   * oracle (a stale document is not served); after the projector the read is a document again,
   * still equal to the oracle, and shows the change.
   */
  async function throughChange({ contactId, change, documentKept = false, viewerAfter = acme.userId, shows }: Change): Promise<void> {
    await project();
    const before = await readChecked([contactId], acme.userId);
    expect(before).toHaveLength(1);
    expect(isContactDocument(before[0].contact)).toBe(true);

    await change();
    const right = await readChecked([contactId], viewerAfter);
    expect(right).toHaveLength(1);
    expect(isContactDocument(right[0].contact)).toBe(documentKept);
    expect((await documentState(contactId)).current).toBe(documentKept);

    const stored = await project();
    if (!documentKept) expect(stored).toBeGreaterThanOrEqual(1);
    expect((await documentState(contactId)).current).toBe(true);
    const after = await readChecked([contactId], viewerAfter);
    expect(after).toHaveLength(1);
    expect(isContactDocument(after[0].contact)).toBe(true);
    shows(spliced(after)[0].contact);
  }

  beforeAll(async () => {
    let accounts: [TestAccount, TestAccount];
    ({ dataSource, accounts, close } = await openMediumDatabase(await createTestDatabase('crm_contact_documents')));
    [acme, other] = accounts;
    projector = new ContactDocumentProjector({ dataSource, logger: pino({ level: 'silent' }) });
    colleagueId = newId();
    await q(
      `INSERT INTO crm.users (id, account_id, first_name, last_name, email, role, bcc_email)
       VALUES ($1, $2, 'Grace', 'Colleague', $3, 'user', $3)`,
      [colleagueId, acme.accountId, `grace-${colleagueId}@example.test`],
    );
    const statuses = await q<{ id: string }>('SELECT id FROM crm.statuses WHERE account_id = $1 ORDER BY is_lead DESC, position, id', [
      acme.accountId,
    ]);
    expect(statuses.length).toBeGreaterThanOrEqual(2);
    [leadStatusId, otherStatusId] = [statuses[0].id, statuses[1].id];
    [{ id: pipelineId }] = await q<{ id: string }>('SELECT id FROM crm.pipelines WHERE account_id = $1 LIMIT 1', [acme.accountId]);
    sizeFieldId = newId();
    await q(
      `INSERT INTO crm.fields (id, account_id, field_set, name, type, position, choices)
       VALUES ($1, $2, 'custom_fields', 'Size', 'select_box', 1, ARRAY['S', 'M', 'L'])`,
      [sizeFieldId, acme.accountId],
    );
    // The other account's contacts: rendered, then never touched by acme's changes.
    const [{ id: otherStatus }] = await q<{ id: string }>('SELECT id FROM crm.statuses WHERE account_id = $1 LIMIT 1', [other.accountId]);
    otherAccountContactIds = [newId(), newId(), newId()];
    await q(
      `INSERT INTO crm.contacts (id, account_id, owner_id, status_id, last_name, sort_name, letter)
       SELECT id, $1, $2, $3, 'o' || id, 'o' || id, 'o' FROM unnest($4::varchar[]) AS v(id)`,
      [other.accountId, other.userId, otherStatus, otherAccountContactIds],
    );
    await project();
  });

  afterAll(async () => close?.());

  describe('a change of a contact column makes its document not current until it is rendered again', () => {
    it('first_name (with quotes, backslashes, control characters and emoji)', async () => {
      const contactId = await newContact();
      const name = 'Zoë "Q" \\ \u0001\u0002 \u2028 😀 ","pending_deal":true,"';
      await throughChange({
        contactId,
        change: () => q('UPDATE crm.contacts SET first_name = $2 WHERE id = $1', [contactId, name]),
        shows: (contact) => expect(contact).toMatchObject({ first_name: name, pending_deal: false }),
      });
    });

    it('modified_at (whole seconds, then microseconds: both read to the millisecond)', async () => {
      const contactId = await newContact();
      await throughChange({
        contactId,
        change: () => q(`UPDATE crm.contacts SET modified_at = '2026-01-02 03:04:05+00' WHERE id = $1`, [contactId]),
        shows: (contact) => expect(contact.modified_at).toBe('2026-01-02T03:04:05.000Z'),
      });
      await throughChange({
        contactId,
        change: () => q(`UPDATE crm.contacts SET modified_at = '2026-01-02 03:04:05.999999+00' WHERE id = $1`, [contactId]),
        shows: (contact) => expect(contact.modified_at).toBe('2026-01-02T03:04:05.999Z'),
      });
    });

    it('owner_id (read by the new owner)', async () => {
      const contactId = await newContact();
      await throughChange({
        contactId,
        change: () => q('UPDATE crm.contacts SET owner_id = $2 WHERE id = $1', [contactId, colleagueId]),
        viewerAfter: colleagueId,
        shows: (contact) => expect(contact.owner_id).toBe(colleagueId),
      });
    });

    it('starred', async () => {
      const contactId = await newContact();
      await throughChange({
        contactId,
        change: () => q('UPDATE crm.contacts SET starred = true WHERE id = $1', [contactId]),
        shows: (contact) => expect(contact.starred).toBe(true),
      });
    });

    it('a custom field value', async () => {
      const contactId = await newContact({ custom_fields: JSON.stringify({ [sizeFieldId]: 'S' }) });
      await throughChange({
        contactId,
        change: () => q('UPDATE crm.contacts SET custom_fields = $2 WHERE id = $1', [contactId, JSON.stringify({ [sizeFieldId]: 'M' })]),
        shows: (contact) =>
          expect(contact.custom_fields).toEqual([
            { custom_field: { id: sizeFieldId, name: 'Size', type: 'select_box', position: 1, choices: ['S', 'M', 'L'] }, value: 'M' },
          ]),
      });
    });

    it('emails', async () => {
      const contactId = await newContact();
      const emails = [{ type: 'work', value: 'ada@example.test' }];
      await throughChange({
        contactId,
        change: () => q('UPDATE crm.contacts SET emails = $2 WHERE id = $1', [contactId, JSON.stringify(emails)]),
        shows: (contact) => expect(contact.emails).toEqual(emails),
      });
    });

    it("company_name, as a company's rename writes it to its contacts", async () => {
      const companyId = newId();
      await q('INSERT INTO crm.companies (id, account_id, name) VALUES ($1, $2, $3)', [companyId, acme.accountId, `Renamed ${companyId}`]);
      const contactId = await newContact({ company_id: companyId, company_name: `Renamed ${companyId}` });
      // A second contact of the company: the single read embeds it among the company's contacts.
      await newContact({ company_id: companyId, company_name: `Renamed ${companyId}` });
      await throughChange({
        contactId,
        change: async () => {
          await q('UPDATE crm.companies SET name = $2 WHERE id = $1', [companyId, `Bigger ${companyId}`]);
          await q('UPDATE crm.contacts SET company_name = $2 WHERE company_id = $1', [companyId, `Bigger ${companyId}`]);
        },
        shows: (contact) => expect(contact).toMatchObject({ company_id: companyId, company_name: `Bigger ${companyId}`, company_size: 2 }),
      });
    });

    it('status_id', async () => {
      const contactId = await newContact();
      const [{ text }] = await q<{ text: string }>('SELECT text FROM crm.statuses WHERE id = $1', [otherStatusId]);
      await throughChange({
        contactId,
        change: () => q('UPDATE crm.contacts SET status_id = $2 WHERE id = $1', [contactId, otherStatusId]),
        shows: (contact) => expect(contact).toMatchObject({ status_id: otherStatusId, status: text }),
      });
    });

    it('lead_source_id', async () => {
      const leadSourceId = newId();
      await q('INSERT INTO crm.lead_sources (id, account_id, text) VALUES ($1, $2, $3)', [leadSourceId, acme.accountId, 'Fair']);
      const contactId = await newContact();
      await throughChange({
        contactId,
        change: () => q('UPDATE crm.contacts SET lead_source_id = $2 WHERE id = $1', [contactId, leadSourceId]),
        shows: (contact) => expect(contact).toMatchObject({ lead_source_id: leadSourceId, lead_source: 'Fair' }),
      });
    });

    it('deleted_at: a deleted contact is not read; undeleted, it is read as it is, then from a new document', async () => {
      const contactId = await newContact({ job_title: 'Engineer' });
      await project();
      expect(isContactDocument((await readChecked([contactId], acme.userId))[0].contact)).toBe(true);
      const { doc_version: version } = await documentState(contactId);

      await q('UPDATE crm.contacts SET deleted_at = now() WHERE id = $1', [contactId]);
      expect((await documentState(contactId)).doc_version).toBeGreaterThan(version);
      expect(await readChecked([contactId], acme.userId)).toEqual([]);
      await project();
      expect(await readChecked([contactId], acme.userId)).toEqual([]);
      // A deleted contact's document is not rendered.
      expect(await refreshContactDocuments(db(), acme.accountId, [contactId])).toBe(0);

      await q('UPDATE crm.contacts SET deleted_at = NULL WHERE id = $1', [contactId]);
      const undeleted = await readChecked([contactId], acme.userId);
      expect(undeleted).toHaveLength(1);
      expect(isContactDocument(undeleted[0].contact)).toBe(false);
      expect(await project()).toBeGreaterThanOrEqual(1);
      const [wrapper] = await readChecked([contactId], acme.userId);
      expect(isContactDocument(wrapper.contact)).toBe(true);
      expect(spliced([wrapper])[0].contact.job_title).toBe('Engineer');
    });
  });

  describe("a change of a contact's tags makes its document not current", () => {
    it('a tag added to the contact', async () => {
      const tagId = await newTag(`added-${newId()}`);
      const contactId = await newContact();
      const [{ name }] = await q<{ name: string }>('SELECT name FROM crm.tags WHERE id = $1', [tagId]);
      await throughChange({
        contactId,
        change: () => tagContact(contactId, tagId),
        shows: (contact) => expect(contact.tags).toEqual([name]),
      });
    });

    it('a tag removed from the contact', async () => {
      const [keptId, removedId] = [await newTag(`a-kept-${newId()}`), await newTag(`b-removed-${newId()}`)];
      const contactId = await newContact();
      await tagContact(contactId, keptId);
      await tagContact(contactId, removedId);
      const [{ name }] = await q<{ name: string }>('SELECT name FROM crm.tags WHERE id = $1', [keptId]);
      await throughChange({
        contactId,
        change: () => q('DELETE FROM crm.contact_tags WHERE contact_id = $1 AND tag_id = $2', [contactId, removedId]),
        shows: (contact) => expect(contact.tags).toEqual([name]),
      });
    });

    it("a tag renamed (the account's epoch moves)", async () => {
      const tagId = await newTag(`renamed-${newId()}`);
      const contactId = await newContact();
      await tagContact(contactId, tagId);
      const newName = `VIP-${newId()}`;
      await throughChange({
        contactId,
        change: async () => {
          const { epoch } = await epochOf(acme.accountId);
          await q('UPDATE crm.tags SET name = $2 WHERE id = $1', [tagId, newName]);
          expect(await epochOf(acme.accountId)).toEqual({ epoch: epoch + 1, sweep: true });
        },
        shows: (contact) => expect(contact.tags).toEqual([newName]),
      });
    });

    it("a tag deleted (the contact loses it, the account's epoch moves)", async () => {
      const tagId = await newTag(`deleted-${newId()}`);
      const contactId = await newContact();
      await tagContact(contactId, tagId);
      await throughChange({
        contactId,
        change: async () => {
          const { epoch } = await epochOf(acme.accountId);
          const { doc_version: version } = await documentState(contactId);
          await q('DELETE FROM crm.tags WHERE id = $1', [tagId]);
          expect(await epochOf(acme.accountId)).toEqual({ epoch: epoch + 1, sweep: true });
          expect((await documentState(contactId)).doc_version).toBeGreaterThan(version);
        },
        shows: (contact) => expect(contact.tags).toEqual([]),
      });
    });
  });

  describe('statuses', () => {
    it("a status's text renamed moves the account's epoch: its contacts show the new text", async () => {
      const contactId = await newContact({ status_id: otherStatusId });
      await throughChange({
        contactId,
        change: async () => {
          const { epoch } = await epochOf(acme.accountId);
          await q(`UPDATE crm.statuses SET text = 'Hot lead' WHERE id = $1`, [otherStatusId]);
          expect(await epochOf(acme.accountId)).toEqual({ epoch: epoch + 1, sweep: true });
        },
        shows: (contact) => expect(contact).toMatchObject({ status_id: otherStatusId, status: 'Hot lead' }),
      });
    });

    it('a status moved in the list (position) bumps nothing: the document stays current', async () => {
      const contactId = await newContact({ status_id: otherStatusId });
      await throughChange({
        contactId,
        change: async () => {
          const epoch = await epochOf(acme.accountId);
          const { doc_version: version } = await documentState(contactId);
          await q('UPDATE crm.statuses SET position = position + 10 WHERE id = $1', [otherStatusId]);
          expect(await epochOf(acme.accountId)).toEqual(epoch);
          expect(await documentState(contactId)).toEqual({ doc_version: version, current: true });
        },
        documentKept: true,
        shows: (contact) => expect(contact.status_id).toBe(otherStatusId),
      });
    });
  });

  describe('lead sources', () => {
    it("a lead source renamed moves the account's epoch: its contacts show the new text", async () => {
      const leadSourceId = newId();
      await q('INSERT INTO crm.lead_sources (id, account_id, text) VALUES ($1, $2, $3)', [leadSourceId, acme.accountId, 'Expo']);
      const contactId = await newContact({ lead_source_id: leadSourceId });
      await throughChange({
        contactId,
        change: async () => {
          const { epoch } = await epochOf(acme.accountId);
          await q(`UPDATE crm.lead_sources SET text = 'Expo 2026' WHERE id = $1`, [leadSourceId]);
          expect(await epochOf(acme.accountId)).toEqual({ epoch: epoch + 1, sweep: true });
        },
        shows: (contact) => expect(contact).toMatchObject({ lead_source_id: leadSourceId, lead_source: 'Expo 2026' }),
      });
    });

    it('a lead source deleted (its contacts lose it by the foreign key) bumps their documents', async () => {
      const leadSourceId = newId();
      await q('INSERT INTO crm.lead_sources (id, account_id, text) VALUES ($1, $2, $3)', [leadSourceId, acme.accountId, 'Gone']);
      const contactId = await newContact({ lead_source_id: leadSourceId });
      await throughChange({
        contactId,
        change: async () => {
          const { doc_version: version } = await documentState(contactId);
          await q('DELETE FROM crm.lead_sources WHERE id = $1', [leadSourceId]);
          expect((await documentState(contactId)).doc_version).toBeGreaterThan(version);
        },
        shows: (contact) => expect(contact).toMatchObject({ lead_source_id: '', lead_source: '' }),
      });
    });
  });

  describe('custom field definitions', () => {
    it("a custom field renamed moves the account's epoch: its values show the new name", async () => {
      const fieldId = newId();
      await q(
        `INSERT INTO crm.fields (id, account_id, field_set, name, type, position) VALUES ($1, $2, 'custom_fields', 'Budget', 'text', 2)`,
        [fieldId, acme.accountId],
      );
      const contactId = await newContact({ custom_fields: JSON.stringify({ [fieldId]: '100' }) });
      await throughChange({
        contactId,
        change: async () => {
          const { epoch } = await epochOf(acme.accountId);
          await q(`UPDATE crm.fields SET name = 'Budget (EUR)' WHERE id = $1`, [fieldId]);
          expect(await epochOf(acme.accountId)).toEqual({ epoch: epoch + 1, sweep: true });
        },
        shows: (contact) =>
          expect(contact.custom_fields).toEqual([
            { custom_field: { id: fieldId, name: 'Budget (EUR)', type: 'text', position: 2 }, value: '100' },
          ]),
      });
    });

    it("a custom field deleted moves the account's epoch: its values vanish", async () => {
      const fieldId = newId();
      await q(
        `INSERT INTO crm.fields (id, account_id, field_set, name, type, position) VALUES ($1, $2, 'custom_fields', 'Region', 'text', 3)`,
        [fieldId, acme.accountId],
      );
      const contactId = await newContact({ custom_fields: JSON.stringify({ [fieldId]: 'EMEA', [sizeFieldId]: 'L' }) });
      await throughChange({
        contactId,
        change: async () => {
          const { epoch } = await epochOf(acme.accountId);
          await q('DELETE FROM crm.fields WHERE id = $1', [fieldId]);
          expect(await epochOf(acme.accountId)).toEqual({ epoch: epoch + 1, sweep: true });
        },
        shows: (contact) => expect(contact.custom_fields.map((v) => (v as { value: unknown }).value)).toEqual(['L']),
      });
    });
  });

  describe('what a document does not store', () => {
    it("a pending deal changes the live counters without bumping the contact's document", async () => {
      const companyId = newId();
      await q('INSERT INTO crm.companies (id, account_id, name) VALUES ($1, $2, $3)', [companyId, acme.accountId, `Counters ${companyId}`]);
      const contactId = await newContact({ company_id: companyId, company_name: `Counters ${companyId}` });
      await project();
      const [before] = spliced(await readChecked([contactId], acme.userId));
      expect(before.contact).toMatchObject({ pending_deal: false, total_pendings: 0, total_deals_count: 0, company_size: 1 });
      const { doc_version: version } = await documentState(contactId);

      await q(
        `INSERT INTO crm.deals (id, account_id, contact_id, owner_id, author_id, pipeline_id, sales_pipeline_id, name, status, stage,
                                expected_close_date, close_date, date, amount)
         VALUES ($1, $2, $3, $4, $4, $5, $5, 'Open', 'pending', 10, current_date, current_date, current_date, 250.5)`,
        [newId(), acme.accountId, contactId, acme.userId, pipelineId],
      );
      expect(await documentState(contactId)).toEqual({ doc_version: version, current: true });
      const afterDeal = await readChecked([contactId], acme.userId);
      expect(isContactDocument(afterDeal[0].contact)).toBe(true);
      expect(spliced(afterDeal)[0].contact).toMatchObject({
        pending_deal: true,
        total_pendings: 250.5,
        total_deals_count: 1,
        company_size: 1,
      });

      // company_size follows the company's contacts.
      await newContact({ company_id: companyId, company_name: `Counters ${companyId}` });
      expect(await documentState(contactId)).toEqual({ doc_version: version, current: true });
      const afterMate = await readChecked([contactId], acme.userId);
      expect(isContactDocument(afterMate[0].contact)).toBe(true);
      expect(spliced(afterMate)[0].contact).toMatchObject({ pending_deal: true, total_deals_count: 1, company_size: 2 });
      // The same after the projector rendered the new mate.
      await project();
      const [settled] = await readChecked([contactId], acme.userId);
      expect(isContactDocument(settled.contact)).toBe(true);
      expect(spliced([settled])[0].contact).toMatchObject({ pending_deal: true, total_pendings: 250.5, company_size: 2 });
    });

    it("a note's last_activity_at does not bump the contact's document", async () => {
      const contactId = await newContact();
      await throughChange({
        contactId,
        change: async () => {
          const { doc_version: version } = await documentState(contactId);
          await q('UPDATE crm.contacts SET last_activity_at = now() WHERE id = $1', [contactId]);
          expect(await documentState(contactId)).toEqual({ doc_version: version, current: true });
        },
        documentKept: true,
        shows: (contact) => expect(contact.id).toBe(contactId),
      });
    });

    it('every column of crm.contacts is classified: shown by documents or not, never both', async () => {
      const columns = (
        await q<{ column_name: string }>(
          `SELECT column_name FROM information_schema.columns WHERE table_schema = 'crm' AND table_name = 'contacts'`,
        )
      ).map((c) => c.column_name);
      const shown: readonly string[] = DOCUMENT_COLUMNS;
      // and those later migrations added, none shown
      const notShown: readonly string[] = [...NOT_DOCUMENT_COLUMNS, ...STREAM_TAG_COLUMNS];
      expect(shown.filter((c) => notShown.includes(c))).toEqual([]);
      expect(new Set(shown).size).toBe(shown.length);
      expect(new Set(notShown).size).toBe(notShown.length);
      expect([...shown, ...notShown].sort()).toEqual([...columns].sort());
    });
  });

  describe('the projector', () => {
    it('refreshContactDocuments stores the documents of the non-deleted contacts of the account that are not current, once', async () => {
      await project();
      const stale = await newContact();
      const deleted = await newContact({ deleted_at: new Date() });
      const fresh = await newContact();
      await refreshContactDocuments(db(), acme.accountId, [fresh]);
      const otherBefore = await q('SELECT * FROM crm.contact_documents WHERE contact_id = $1', [otherAccountContactIds[0]]);
      await q(`UPDATE crm.contacts SET last_name = 'Changed' WHERE id = $1`, [otherAccountContactIds[0]]);

      const ids = [stale, deleted, fresh, otherAccountContactIds[0], newId()];
      expect(await refreshContactDocuments(db(), acme.accountId, ids)).toBe(1);
      expect((await documentState(stale)).current).toBe(true);
      expect(await q('SELECT 1 FROM crm.contact_documents WHERE contact_id = $1', [deleted])).toEqual([]);
      // Another account's contact is not rendered under this account.
      expect(await q('SELECT * FROM crm.contact_documents WHERE contact_id = $1', [otherAccountContactIds[0]])).toEqual(otherBefore);
      expect(await refreshContactDocuments(db(), acme.accountId, ids)).toBe(0);
      await project();
    });

    it("renders every inserted contact; an epoch bump sweeps the account, not the other account's documents", async () => {
      await project();
      const ids = Array.from({ length: 450 }, () => newId());
      await q(
        `INSERT INTO crm.contacts (id, account_id, owner_id, status_id, first_name, last_name, sort_name, letter, custom_fields)
         SELECT id, $1, $2, $3, 'Bulk', 'p' || lpad(i::text, 4, '0'), 'p' || lpad(i::text, 4, '0'), 'p',
                CASE WHEN i % 3 = 0 THEN jsonb_build_object($5::text, 'M') ELSE '{}' END
         FROM unnest($4::varchar[]) WITH ORDINALITY AS v(id, i)`,
        [acme.accountId, acme.userId, otherStatusId, ids, sizeFieldId],
      );
      const queuedCount = async () =>
        (
          await q<{ n: number }>('SELECT count(*)::int AS n FROM crm.contact_document_queue WHERE contact_id = ANY($1::varchar[])', [ids])
        )[0].n;
      const currentCount = async (accountId: string) =>
        (
          await q<{ n: number }>(
            `SELECT count(*)::int AS n FROM crm.contacts c
             JOIN crm.contact_documents d ON d.contact_id = c.id AND d.doc_version = c.doc_version
               AND d.epoch = coalesce((SELECT e.epoch FROM crm.document_epochs e WHERE e.account_id = c.account_id), 0)
             WHERE c.account_id = $1 AND c.deleted_at IS NULL`,
            [accountId],
          )
        )[0].n;
      const liveCount = async (accountId: string) =>
        (await q<{ n: number }>('SELECT count(*)::int AS n FROM crm.contacts WHERE account_id = $1 AND deleted_at IS NULL', [accountId]))[0]
          .n;
      expect(await queuedCount()).toBe(450);

      expect(await projector.runOnce()).toBe(450);
      expect(await queuedCount()).toBe(0);
      expect(await pending()).toEqual({ queued: 0, sweeps: 0 });
      const acmeLive = await liveCount(acme.accountId);
      expect(await currentCount(acme.accountId)).toBe(acmeLive);
      for (const id of [ids[0], ids[2], ids[449]]) expect(isContactDocument((await readChecked([id], acme.userId))[0].contact)).toBe(true);

      const otherDocuments = () =>
        q('SELECT d.* FROM crm.contact_documents d WHERE d.contact_id = ANY($1::varchar[]) ORDER BY d.contact_id', [
          otherAccountContactIds,
        ]);
      const otherBefore = await otherDocuments();
      expect(await currentCount(other.accountId)).toBe(await liveCount(other.accountId));

      // The bulk contacts' status renamed: every document of acme is not current until the sweep.
      await q(`UPDATE crm.statuses SET text = 'Swept' WHERE id = $1`, [otherStatusId]);
      expect(await currentCount(acme.accountId)).toBe(0);
      expect(await epochOf(acme.accountId)).toMatchObject({ sweep: true });
      expect(await epochOf(other.accountId)).toEqual({ epoch: 0, sweep: false });
      const [stale] = spliced(await readChecked([ids[0]], acme.userId));
      expect(stale.contact.status).toBe('Swept');

      expect(await projector.runOnce()).toBe(acmeLive);
      expect(await currentCount(acme.accountId)).toBe(acmeLive);
      expect(await pending()).toEqual({ queued: 0, sweeps: 0 });
      const swept = await readChecked([ids[0], ids[1], ids[449]], acme.userId);
      expect(swept.every((w) => isContactDocument(w.contact))).toBe(true);
      expect(spliced(swept).map((w) => w.contact.status)).toEqual(['Swept', 'Swept', 'Swept']);
      // The other account: not swept, its documents as they were and current.
      expect(await otherDocuments()).toEqual(otherBefore);
      expect(await currentCount(other.accountId)).toBe(await liveCount(other.accountId));
    });
    it('an epoch bump in the middle of a sweep starts the sweep over', async () => {
      await project();
      const stepwise = new ContactDocumentProjector({ dataSource, logger: pino({ level: 'silent' }), batch: 100, stepsPerRun: 1 });
      const stale = async () =>
        (
          await q<{ n: number }>(
            `SELECT count(*)::int AS n FROM crm.contacts c
             LEFT JOIN crm.contact_documents d ON d.contact_id = c.id AND d.doc_version = c.doc_version
               AND d.epoch = coalesce((SELECT e.epoch FROM crm.document_epochs e WHERE e.account_id = c.account_id), 0)
             WHERE c.account_id = $1 AND c.deleted_at IS NULL AND d.contact_id IS NULL`,
            [acme.accountId],
          )
        )[0].n;
      await q(`UPDATE crm.statuses SET text = 'Midway' WHERE id = $1`, [otherStatusId]);
      const all = await stale();
      expect(all).toBeGreaterThan(300);
      expect(await stepwise.runOnce()).toBe(100);
      expect(await stepwise.runOnce()).toBe(100);
      expect(await stale()).toBe(all - 200);
      const [{ after_created: place }] = await q<{ after_created: Date | null }>(
        'SELECT after_created FROM crm.contact_document_sweeps WHERE account_id = $1',
        [acme.accountId],
      );
      expect(place).not.toBeNull();

      // Renamed again: the 200 rendered are not current any more, and the sweep starts from the first contact.
      await q(`UPDATE crm.statuses SET text = 'Midway again' WHERE id = $1`, [otherStatusId]);
      expect(await stale()).toBe(all);
      expect(await q('SELECT after_created, after_id FROM crm.contact_document_sweeps WHERE account_id = $1', [acme.accountId])).toEqual([
        { after_created: null, after_id: '' },
      ]);
      await project();
      expect(await stale()).toBe(0);
      const ids = (
        await q<{ id: string }>(
          'SELECT id FROM crm.contacts WHERE account_id = $1 AND status_id = $2 AND deleted_at IS NULL ORDER BY created_at, id LIMIT 3',
          [acme.accountId, otherStatusId],
        )
      ).map((r) => r.id);
      const read = await readChecked(ids, acme.userId);
      expect(read.every((w) => isContactDocument(w.contact))).toBe(true);
      expect(spliced(read).map((w) => w.contact.status)).toEqual(ids.map(() => 'Midway again'));
    });
  });

  describe('the projector and writers never wait on each other', () => {
    /**
     * A statement that has to wait for a lock fails after lock_timeout instead: these check that no
     * lock is waited for at all (a wait both ways is a deadlock: a PUT answered 500).
     */
    async function withTransaction<T>(
      work: (run: (text: string, values?: unknown[]) => Promise<unknown[]>, manager: EntityManager) => Promise<T>,
    ): Promise<T> {
      const runner = dataSource.createQueryRunner();
      await runner.connect();
      await runner.startTransaction();
      try {
        await runner.query(`SET LOCAL lock_timeout = '2s'`);
        const result = await work((text, values = []) => runner.query(text, values), runner.manager);
        await runner.commitTransaction();
        return result;
      } catch (error) {
        await runner.rollbackTransaction();
        throw error;
      } finally {
        await runner.release();
      }
    }

    it('a contact written while the projector holds its queue entry is written at once, and queued again', async () => {
      const contactId = await newContact();
      await project();
      await q(`UPDATE crm.contacts SET first_name = 'Queued' WHERE id = $1`, [contactId]);
      const projectorTx = dataSource.createQueryRunner();
      await projectorTx.connect();
      await projectorTx.startTransaction();
      try {
        // The projector's step: the entry taken off the queue, not yet rendered.
        const taken = await takeQueuedContacts(projectorTx.manager, 1000);
        expect(taken.map((r) => r.contact_id)).toContain(contactId);
        // A writer changes the same contact meanwhile, and commits.
        await withTransaction((run) => run(`UPDATE crm.contacts SET first_name = 'Writer' WHERE id = $1`, [contactId]));
        // The projector renders (the writer's version) and stores without waiting either.
        await projectorTx.query(`SET LOCAL lock_timeout = '2s'`);
        expect(await refreshContactDocuments(projectorTx.manager, acme.accountId, [contactId])).toBe(1);
        await projectorTx.commitTransaction();
      } finally {
        if (projectorTx.isTransactionActive) await projectorTx.rollbackTransaction();
        await projectorTx.release();
      }
      // The writer's change queued the contact again; the document is current and shows it.
      expect((await documentState(contactId)).current).toBe(true);
      const [wrapper] = await readChecked([contactId], acme.userId);
      expect(isContactDocument(wrapper.contact)).toBe(true);
      expect(wrapper.contact.first_name).toBe('Writer');
      await project();
    });

    it('the projector renders a contact whose row a writer holds, without waiting for the writer', async () => {
      const contactId = await newContact();
      await project();
      await q(`UPDATE crm.contacts SET first_name = 'Before' WHERE id = $1`, [contactId]);
      const writer = dataSource.createQueryRunner();
      await writer.connect();
      await writer.startTransaction();
      try {
        // A writer holds the contact's row (locked for update, and updated), uncommitted.
        await writer.query(`SELECT id FROM crm.contacts WHERE id = $1 FOR UPDATE`, [contactId]);
        await writer.query(`UPDATE crm.contacts SET first_name = 'Uncommitted' WHERE id = $1`, [contactId]);
        // The projector's step renders the committed contact meanwhile (under the lock_timeout).
        const stored = await withTransaction(async (_run, manager) => {
          expect((await takeQueuedContacts(manager, 1000)).map((r) => r.contact_id)).toContain(contactId);
          return refreshContactDocuments(manager, acme.accountId, [contactId]);
        });
        expect(stored).toBe(1);
        expect((await documentState(contactId)).current).toBe(true);
        await writer.commitTransaction();
      } finally {
        if (writer.isTransactionActive) await writer.rollbackTransaction();
        await writer.release();
      }
      // The writer's commit made that document not current: reads show the writer's change.
      expect((await documentState(contactId)).current).toBe(false);
      const [wrapper] = await readChecked([contactId], acme.userId);
      expect(wrapper.contact.first_name).toBe('Uncommitted');
      await project();
      expect((await documentState(contactId)).current).toBe(true);
    });

    it("a contact's hard delete removes its document", async () => {
      const contactId = await newContact();
      await project();
      expect(await q('SELECT 1 FROM crm.contact_documents WHERE contact_id = $1', [contactId])).toHaveLength(1);
      await q('DELETE FROM crm.contacts WHERE id = $1', [contactId]);
      expect(await q('SELECT 1 FROM crm.contact_documents WHERE contact_id = $1', [contactId])).toHaveLength(0);
      expect(await projector.runOnce()).toBe(0);
    });
  });

  describe('metrics', () => {
    it('count the documents rendered and show what is left at scrape time', async () => {
      await project();
      const registry = new Registry();
      const metrics = new ContactDocumentMetrics(registry, () => contactDocumentBacklog(db()));
      const measured = new ContactDocumentProjector({ dataSource, logger: pino({ level: 'silent' }), metrics });
      const value = async (name: string) => (await registry.getSingleMetric(name)!.get()).values[0]?.value ?? 0;
      const ids = [await newContact(), await newContact(), await newContact()];
      expect(await value('crm_contact_documents_queued')).toBe(3);
      expect(await measured.runOnce()).toBe(3);
      expect(await value('crm_contact_documents_rendered_total')).toBe(3);
      // The backlog is read at most once a second: a later scrape shows the empty queue.
      await new Promise((resolve) => setTimeout(resolve, 1100));
      expect(await value('crm_contact_documents_queued')).toBe(0);
      expect(await value('crm_contact_documents_sweeps')).toBe(0);
      for (const id of ids) expect((await documentState(id)).current).toBe(true);
    });
  });

  describe('a list page', () => {
    it("splices every contact's document, equal to the oracle", async () => {
      await project();
      const contacts = new ContactsRepository();
      // The admin's own contacts by name (the actions, if any, are then the same for viewer and owner).
      const page = contacts.page(contacts.filter(acme.accountId, acme.userId, {}, null), { key: 'name', direction: 'asc' }, 1, 100);
      const { ids, total, wrappers } = await contactWrapperPage(db(), acme.accountId, page, acme.userId);
      expect(ids).toHaveLength(100);
      expect(total).toBeGreaterThan(450);
      expect(wrappers.map((w) => w.contact.id)).toEqual(ids);
      expect(wrappers.every((w) => isContactDocument(w.contact))).toBe(true);
      const oracle = plain(await loadContactWrappers(db(), acme.accountId, ids, null, LIST_ENTRIES));
      expect(spliced(wrappers)).toEqual(oracle);
      expect(plain(wrappers)).toEqual(oracle);
      // The page holds contacts with companies, tags, custom fields and deals.
      const shown = spliced(wrappers).map((w) => w.contact);
      expect(shown.some((c) => c.company_id !== '')).toBe(true);
      expect(shown.some((c) => c.tags.length > 0)).toBe(true);
      expect(shown.some((c) => c.custom_fields.length > 0)).toBe(true);
      expect(shown.some((c) => c.pending_deal)).toBe(true);

      // Many ids as list entries (documents of the bulk contacts among them), equal to the oracle too.
      const many = (
        await q<{ id: string }>('SELECT id FROM crm.contacts WHERE account_id = $1 AND owner_id = $2 AND deleted_at IS NULL ORDER BY id', [
          acme.accountId,
          acme.userId,
        ])
      ).map((r) => r.id);
      const entries = await readChecked(many, acme.userId, LIST_ENTRIES);
      expect(entries.length).toBe(many.length);
      expect(entries.every((w) => isContactDocument(w.contact))).toBe(true);
    });
  });
});
