import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Contact documents (issue 17, decisions.md "Contact documents"): the API's `contact` object of
 * each contact, stored as rendered JSON text, so that a contact wrapper's read splices it into the
 * reply instead of joining, aggregating, parsing and serializing the contact every time.
 *
 * A document is the JSON without the four live counters (`pending_deal`, `total_pendings`,
 * `total_deals_count`, `company_size`, which every deal changes): `head` is the text before them,
 * `tail` the text after them. It is current when it was rendered from the contact's `doc_version`
 * and its account's document epoch; a read uses only a current document.
 *
 * Triggers keep the versions, so that no write path can forget one:
 * - `doc_version` is bumped by every UPDATE of a contact that changes a column the document shows
 *   (not the counters, `last_activity_at` or the search columns: notes and deals do not bump it),
 *   and by every change of the contact's tags;
 * - the account's epoch is bumped by a change of a status's text, a lead source's text, a tag's
 *   name, a deleted tag, or any change of a contact field definition.
 *
 * The projector (contact-documents.projector.ts) renders documents: contacts queued by the same
 * triggers (inserted, or their document bumped) and, after an epoch bump, a sweep of the account.
 * This migration queues a sweep of every existing account.
 */
/** A statement trigger function of {@link STATEMENT_FUNCTIONS}. */
function statementFunction(create: 'CREATE' | 'CREATE OR REPLACE', name: string, body: string): string {
  return `${create} FUNCTION crm.${name}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN ${body}; RETURN NULL; END $$`;
}

/** crm.contact_tags' statement function as this migration creates it (a later migration restores it in its down()). */
export const CONTACT_TAGS_DOC_FUNCTION = (): string =>
  statementFunction('CREATE OR REPLACE', 'contact_tags_doc_version', STATEMENT_FUNCTIONS.contact_tags_doc_version);

export class ContactDocuments1764800800000 implements MigrationInterface {
  name = 'ContactDocuments1764800800000';

  async up(q: QueryRunner): Promise<void> {
    // A fast default: no rewrite of the table.
    await q.query(`ALTER TABLE crm.contacts ADD COLUMN doc_version bigint NOT NULL DEFAULT 0`);
    await q.query(`
      CREATE TABLE crm.document_epochs (
        account_id varchar(24) PRIMARY KEY REFERENCES crm.accounts(id) ON DELETE CASCADE,
        epoch bigint NOT NULL
      )`);
    // No foreign key: its check would lock the contact's row (FOR KEY SHARE) in the projector's
    // transaction, and a writer holding that row could then wait on the projector while the
    // projector waits on it. A contact's delete removes its document (contacts_doc_delete).
    await q.query(`
      CREATE TABLE crm.contact_documents (
        contact_id varchar(24) PRIMARY KEY,
        account_id varchar(24) NOT NULL,
        doc_version bigint NOT NULL,
        epoch bigint NOT NULL,
        head text NOT NULL,
        tail text NOT NULL
      )`);
    // Contacts whose document is to be rendered: appended to, never upserted, so that a writer
    // never waits on the projector's transaction that is taking the same contact off it (the
    // projector reads a contact once however often it is queued). No foreign key: the projector
    // skips a contact that is gone, and a contact's delete does not pay for a check here.
    await q.query(`
      CREATE TABLE crm.contact_document_queue (
        id bigserial PRIMARY KEY,
        contact_id varchar(24) NOT NULL,
        account_id varchar(24) NOT NULL
      )`);
    // Accounts whose every document is to be rendered again (their epoch moved), with the sweep's
    // place in (created_at, id) order.
    await q.query(`
      CREATE TABLE crm.contact_document_sweeps (
        account_id varchar(24) PRIMARY KEY REFERENCES crm.accounts(id) ON DELETE CASCADE,
        epoch bigint NOT NULL,
        after_created timestamptz,
        after_id varchar(24) NOT NULL DEFAULT ''
      )`);

    // A contact's document version: bumped (and the contact queued) when a column the document shows changes.
    await q.query(`
      CREATE FUNCTION crm.contacts_doc_version() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        NEW.doc_version := OLD.doc_version + 1;
        INSERT INTO crm.contact_document_queue (contact_id, account_id) VALUES (NEW.id, NEW.account_id);
        RETURN NEW;
      END $$`);
    await q.query(`
      CREATE TRIGGER contacts_doc_version BEFORE UPDATE ON crm.contacts FOR EACH ROW
      WHEN ((OLD.${DOCUMENT_COLUMNS.join(', OLD.')}) IS DISTINCT FROM (NEW.${DOCUMENT_COLUMNS.join(', NEW.')}))
      EXECUTE FUNCTION crm.contacts_doc_version()`);
    // An account's epoch: bumped, and a sweep of its documents (re)started.
    await q.query(`
      CREATE FUNCTION crm.bump_document_epochs(accounts varchar[]) RETURNS void LANGUAGE sql AS $$
        WITH bumped AS (
          INSERT INTO crm.document_epochs AS e (account_id, epoch)
          SELECT DISTINCT a, 1 FROM unnest(accounts) a
          ON CONFLICT (account_id) DO UPDATE SET epoch = e.epoch + 1
          RETURNING e.account_id, e.epoch
        )
        INSERT INTO crm.contact_document_sweeps AS s (account_id, epoch, after_created, after_id)
        SELECT account_id, epoch, NULL, '' FROM bumped
        ON CONFLICT (account_id) DO UPDATE SET epoch = excluded.epoch, after_created = NULL, after_id = ''
      $$`);
    for (const [name, body] of Object.entries(STATEMENT_FUNCTIONS)) await q.query(statementFunction('CREATE', name, body));
    for (const t of STATEMENT_TRIGGERS)
      await q.query(
        `CREATE TRIGGER ${t.name} AFTER ${t.event} ON crm.${t.table} REFERENCING ${t.referencing} FOR EACH STATEMENT EXECUTE FUNCTION crm.${t.fn}()`,
      );

    // Existing contacts: every account swept once.
    await q.query(`INSERT INTO crm.contact_document_sweeps (account_id, epoch) SELECT id, 0 FROM crm.accounts`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of STATEMENT_TRIGGERS) await q.query(`DROP TRIGGER ${t.name} ON crm.${t.table}`);
    for (const name of Object.keys(STATEMENT_FUNCTIONS)) await q.query(`DROP FUNCTION crm.${name}()`);
    await q.query(`DROP FUNCTION crm.bump_document_epochs(varchar[])`);
    await q.query(`DROP TRIGGER contacts_doc_version ON crm.contacts`);
    await q.query(`DROP FUNCTION crm.contacts_doc_version()`);
    await q.query(`DROP TABLE crm.contact_document_sweeps`);
    await q.query(`DROP TABLE crm.contact_document_queue`);
    await q.query(`DROP TABLE crm.contact_documents`);
    await q.query(`DROP TABLE crm.document_epochs`);
    await q.query(`ALTER TABLE crm.contacts DROP COLUMN doc_version`);
  }
}

/**
 * The columns of crm.contacts a contact document shows (or that decide whether it is shown). The
 * others are live in every read (the deal counters), not shown (`last_activity_at`, `photo_key`),
 * or derived from these (`sort_name`, `search_text`). contact-documents.medium-spec.ts fails when
 * a column of crm.contacts is in neither list, so a new column is classified before it ships.
 */
export const DOCUMENT_COLUMNS = [
  'id',
  'account_id',
  'owner_id',
  'title',
  'first_name',
  'last_name',
  'job_title',
  'starred',
  'photo_url',
  'company_id',
  'company_name',
  'urls',
  'phones',
  'emails',
  'address_list',
  'status_id',
  'lead_source_id',
  'background',
  'custom_fields',
  'closed_sales',
  'google_contacts_data',
  'letter',
  'deleted_at',
  'created_at',
  'modified_at',
] as const;

/** The columns of crm.contacts that no contact document shows (see {@link DOCUMENT_COLUMNS}). */
export const NOT_DOCUMENT_COLUMNS = [
  'doc_version',
  'sort_name',
  'search_text',
  'last_activity_at',
  'deals_count',
  'pending_deals_count',
  'pending_deals_amount',
  'won_deals_count',
  'won_deals_amount',
  'photo_key',
] as const;

/** Tables whose rows' text a contact document shows: an update that changes it bumps the account's epoch. */
const EPOCH_SOURCES = [
  { table: 'statuses', shown: ['text'] },
  { table: 'lead_sources', shown: ['text'] },
  { table: 'tags', shown: ['name'] },
  { table: 'fields', shown: ['field_set', 'name', 'type', 'position', 'choices'] },
] as const;

/** The statement triggers' functions (their bodies; each returns NULL). */
const STATEMENT_FUNCTIONS: Record<string, string> = {
  // Inserted contacts are queued.
  contacts_doc_queue: `INSERT INTO crm.contact_document_queue (contact_id, account_id) SELECT id, account_id FROM new_rows`,
  // A hard-deleted contact's document goes with it (contact_documents has no foreign key).
  contacts_doc_delete: `DELETE FROM crm.contact_documents WHERE contact_id IN (SELECT id FROM old_rows)`,
  // A contact's tags: its version bumped. Deletes cascaded from a deleted tag bump each contact that
  // had it (which the tag's delete touches anyway); from a deleted contact, none is left to bump.
  contact_tags_doc_version: `WITH bumped AS (
      UPDATE crm.contacts c SET doc_version = c.doc_version + 1
      WHERE c.id IN (SELECT DISTINCT contact_id FROM changed_rows)
      RETURNING c.id, c.account_id
    )
    INSERT INTO crm.contact_document_queue (contact_id, account_id) SELECT id, account_id FROM bumped`,
  // Deleted tags (their contacts lose them), and field definitions added or removed (company and
  // deal fields too: rare, and a sweep renders the same documents again).
  doc_epoch_rows: `PERFORM crm.bump_document_epochs(ARRAY(SELECT DISTINCT account_id FROM changed_rows))`,
  // Updates: only when what documents show changed (a status moved in the list bumps nothing).
  ...Object.fromEntries(
    EPOCH_SOURCES.map(({ table, shown }) => [
      `${table}_doc_epoch_update`,
      `PERFORM crm.bump_document_epochs(ARRAY(
        SELECT DISTINCT n.account_id FROM new_rows n JOIN old_rows o ON o.id = n.id
        WHERE (o.${shown.join(', o.')}) IS DISTINCT FROM (n.${shown.join(', n.')})))`,
    ]),
  ),
};

/** The statement triggers: after which change of which table, with which transition table, which function. */
const STATEMENT_TRIGGERS: ReadonlyArray<{ name: string; event: string; table: string; referencing: string; fn: string }> = [
  { name: 'contacts_doc_queue', event: 'INSERT', table: 'contacts', referencing: 'NEW TABLE AS new_rows', fn: 'contacts_doc_queue' },
  { name: 'contacts_doc_delete', event: 'DELETE', table: 'contacts', referencing: 'OLD TABLE AS old_rows', fn: 'contacts_doc_delete' },
  ...(['INSERT', 'DELETE'] as const).map((event) => ({
    name: `contact_tags_doc_version_${event.toLowerCase()}`,
    event,
    table: 'contact_tags',
    referencing: `${event === 'INSERT' ? 'NEW' : 'OLD'} TABLE AS changed_rows`,
    fn: 'contact_tags_doc_version',
  })),
  ...EPOCH_SOURCES.map(({ table }) => ({
    name: `${table}_doc_epoch_update`,
    event: 'UPDATE',
    table,
    referencing: 'OLD TABLE AS old_rows NEW TABLE AS new_rows',
    fn: `${table}_doc_epoch_update`,
  })),
  { name: 'tags_doc_epoch_delete', event: 'DELETE', table: 'tags', referencing: 'OLD TABLE AS changed_rows', fn: 'doc_epoch_rows' },
  { name: 'fields_doc_epoch_insert', event: 'INSERT', table: 'fields', referencing: 'NEW TABLE AS changed_rows', fn: 'doc_epoch_rows' },
  { name: 'fields_doc_epoch_delete', event: 'DELETE', table: 'fields', referencing: 'OLD TABLE AS changed_rows', fn: 'doc_epoch_rows' },
];
