import { newId } from '@crm/common';
import { createTestDatabase } from '@crm/testing';
import type { ContactFilterRequest } from '@crm/contracts';
import type { DataSource } from 'typeorm';
import { many, sql, type SqlFragment } from '../common/sql';
import { contactWrapperPage } from '../read-models';
import { ContactTagsRepository } from './contact-tags.repository';
import { derivedColumns, planContactWrite, type ContactState } from './contact.rules';
import { ContactsRepository, DEFERRED_PAGE_OFFSET } from './contacts.repository';
import { openMediumDatabase, type TestAccount } from './contacts.medium-fixture';

describe('ContactsRepository (real PostgreSQL)', () => {
  let dataSource: DataSource;
  let close: () => Promise<void>;
  let acme: TestAccount;
  let other: TestAccount;
  let lead: string;
  const contacts = new ContactsRepository();
  const tags = new ContactTagsRepository();

  beforeAll(async () => {
    let accounts: [TestAccount, TestAccount];
    ({ dataSource, accounts, close } = await openMediumDatabase(await createTestDatabase('crm_contacts_repo')));
    [acme, other] = accounts;
    lead = await contacts.leadStatusId(dataSource.manager, acme.accountId);
  });

  afterAll(async () => close?.());

  /** Inserts a contact of `account` with these fields (defaults otherwise) and returns its id. */
  async function insert(account: TestAccount, fields: Partial<ContactState>): Promise<string> {
    const state: ContactState = {
      ...planContactWrite({}, null, 'create', account.userId).state,
      status_id: account === acme ? lead : await contacts.leadStatusId(dataSource.manager, account.accountId),
      ...fields,
    };
    const id = newId();
    await contacts.insert(dataSource.manager, account.accountId, id, state, derivedColumns(state));
    return id;
  }

  const matching = async (account: TestAccount, filter: ContactFilterRequest, saved: SqlFragment | null = null) => {
    const q = contacts.filter(account.accountId, account.userId, filter, saved);
    const { ids, total, wrappers } = await contactWrapperPage(
      dataSource.manager,
      account.accountId,
      contacts.page(q, { key: 'name', direction: 'asc' }, 1, 100),
      account.userId,
    );
    // The page's total is the same as the count alone; its wrappers are its ids, in its order.
    expect(total).toBe(ids.length);
    expect(await contacts.count(dataSource.manager, q)).toBe(total);
    expect(wrappers.map((w) => w.contact.id)).toEqual(ids);
    return ids;
  };

  describe('search and match filters', () => {
    let ada: string;
    let grace: string;
    let percent: string;

    beforeAll(async () => {
      ada = await insert(acme, {
        first_name: 'Ada',
        last_name: 'Lovelace',
        company_name: 'Analytical Engines',
        phones: [{ type: 'work', value: '+44 (20) 7946-0018' }],
        emails: [{ type: 'work', value: 'Ada@Example.test' }],
      });
      grace = await insert(acme, { first_name: 'Grace', last_name: 'Hopper', urls: [{ type: 'other', value: 'https://Navy.example' }] });
      percent = await insert(acme, { last_name: '50% Off' });
      await insert(other, { first_name: 'Ada', last_name: 'Lovelace' });
    });

    it('finds a part of the names (either order, no accents, any case) through the trigram CTE and short terms on the name order', async () => {
      expect(await matching(acme, { search: 'LOVEL' })).toEqual([ada]);
      expect(await matching(acme, { search: 'lovelace ada' })).toEqual([ada]);
      expect(await matching(acme, { search: 'engines' })).toEqual([ada]);
      expect(await matching(acme, { search: 'ho' })).toEqual([grace]);
    });

    it('compares phone-like terms by digits and matches LIKE wildcards literally', async () => {
      expect(await matching(acme, { search: '7946 0018' })).toEqual([ada]);
      expect(await matching(acme, { search: '50%' })).toEqual([percent]);
      expect(await matching(acme, { search: '5_%' })).toEqual([]);
    });

    it('phone matches all digits exactly; email and url a whole value in any case', async () => {
      expect(await matching(acme, { phone: '442079460018' })).toEqual([ada]);
      expect(await matching(acme, { phone: '4420' })).toEqual([]);
      expect(await matching(acme, { phone: 'none' })).toEqual([]);
      expect(await matching(acme, { email: 'ada@example.TEST' })).toEqual([ada]);
      expect(await matching(acme, { email: 'ada@example' })).toEqual([]);
      expect(await matching(acme, { url: 'https://navy.example' })).toEqual([grace]);
    });

    it('scopes to the caller unless team or owner_id; letter and starred', async () => {
      const mine = await matching(acme, {});
      expect(mine).toEqual(expect.arrayContaining([ada, grace, percent]));
      expect(await matching({ ...acme, userId: newId() }, {})).toEqual([]);
      expect(await matching({ ...acme, userId: newId() }, { team: true })).toEqual(mine);
      expect(await matching({ ...acme, userId: newId() }, { owner_id: acme.userId.toUpperCase() })).toEqual(mine);
      expect(await matching(acme, { letter: 'h' })).toEqual([grace]);
      expect(await matching(acme, { letter: '1' })).toEqual([percent]);
      expect(await matching(acme, { starred: true })).toEqual([]);
      expect(await matching(acme, { starred: false })).toEqual(mine);
    });
    it('totals a list filtered only by what the group counters know (status, lead source, letter, star, pending deal) from them', async () => {
      const db = dataSource.manager;
      const [{ id: prospect }] = await db.query('SELECT id FROM crm.statuses WHERE account_id = $1 AND NOT is_lead LIMIT 1', [
        acme.accountId,
      ]);
      const starred = await insert(acme, { last_name: 'Starling', starred: true, status_id: prospect });
      try {
        const plain = async (where: string, values: unknown[]) =>
          Number(
            (
              await db.query(`SELECT count(*) FROM crm.contacts c WHERE c.account_id = $1 AND c.deleted_at IS NULL AND ${where}`, [
                acme.accountId,
                ...values,
              ])
            )[0].count,
          );
        const cases: Array<[ContactFilterRequest, string, unknown[]]> = [
          [{ starred: false }, 'c.owner_id = $2 AND NOT c.starred', [acme.userId]],
          [{ starred: true, team: true }, 'c.starred', []],
          [{ status_id: prospect.toUpperCase() }, 'c.owner_id = $2 AND c.status_id = $3', [acme.userId, prospect]],
          [{ status_id: lead, letter: 'h' }, "c.owner_id = $2 AND c.status_id = $3 AND c.letter = 'h'", [acme.userId, lead]],
          [{ pending_deal: false, team: true }, 'c.pending_deals_count = 0', []],
        ];
        for (const [filter, where, values] of cases) {
          const q = contacts.filter(acme.accountId, acme.userId, filter, null);
          expect([filter, q.counted?.groups.length]).toEqual([filter, Object.keys(filter).filter((k) => k !== 'team').length]);
          const expected = await plain(where, values);
          expect([filter, await contacts.count(db, q)]).toEqual([filter, expected]);
          // The page's total is the same, and the total's plan reads the counters, not the contacts.
          const { total } = await contactWrapperPage(
            db,
            acme.accountId,
            contacts.page(q, { key: 'name', direction: 'asc' }, 1, 100),
            acme.userId,
          );
          expect([filter, total]).toEqual([filter, expected]);
          const [plan] = await many(db, sql`EXPLAIN (FORMAT JSON) ${contacts.page(q, { key: 'name', direction: 'asc' }, 1, 100).total}`);
          expect(JSON.stringify(plan)).toContain('"Relation Name":"contact_group_counters"');
          expect(JSON.stringify(plan)).not.toContain('"Relation Name":"contacts"');
        }
        expect((await matching(acme, { starred: true })).includes(starred)).toBe(true);
        // Anything else filtered is counted over the contacts.
        expect(contacts.filter(acme.accountId, acme.userId, { starred: false, search: 'lovelace' }, null).counted).toBeUndefined();
        expect(contacts.filter(acme.accountId, acme.userId, { starred: false, tag: 'vip' }, null).counted).toBeUndefined();
        expect(contacts.filter(acme.accountId, acme.userId, { starred: false, since: '2020-01-01' }, null).counted).toBeUndefined();
        // The owner scope alone: the per-owner counters.
        expect(contacts.filter(acme.accountId, acme.userId, {}, null).counted?.groups).toEqual([]);
      } finally {
        await db.query('DELETE FROM crm.contacts WHERE id = $1', [starred]);
      }
    });

    it("pending_deal reads the contact's stored pending deals count: a deal that is won or moved away no longer counts", async () => {
      const [{ id: pipelineId }] = await dataSource.manager.query('SELECT id FROM crm.pipelines WHERE account_id = $1 LIMIT 1', [
        acme.accountId,
      ]);
      const dealId = newId();
      await dataSource.manager.query(
        `INSERT INTO crm.deals (id, account_id, contact_id, owner_id, author_id, pipeline_id, sales_pipeline_id, status, stage,
                                expected_close_date, close_date, date)
         VALUES ($1, $2, $3, $4, $4, $5, $5, 'pending', 10, current_date, current_date, current_date)`,
        [dealId, acme.accountId, ada, acme.userId, pipelineId],
      );
      expect(await matching(acme, { pending_deal: true })).toEqual([ada]);
      expect(await matching(acme, { pending_deal: false })).toEqual(expect.not.arrayContaining([ada]));
      await dataSource.manager.query('UPDATE crm.deals SET contact_id = $2 WHERE id = $1', [dealId, grace]);
      expect(await matching(acme, { pending_deal: true })).toEqual([grace]);
      await dataSource.manager.query("UPDATE crm.deals SET status = 'won', stage = NULL WHERE id = $1", [dealId]);
      expect(await matching(acme, { pending_deal: true })).toEqual([]);
      expect(await matching(acme, { pending_deal: false })).toEqual(await matching(acme, {}));
      await dataSource.manager.query('DELETE FROM crm.deals WHERE id = $1', [dealId]);
    });

    it("composes a saved filter's condition (its own numbered parameters) with the other filters", async () => {
      const filterId = newId();
      const conditions = [
        { field: 'first_name', operator: 'contains', value: 'a' },
        { field: 'company_id', operator: 'is_empty' },
      ];
      await dataSource.manager.query('INSERT INTO crm.filters (id, account_id, name, conditions) VALUES ($1, $2, $3, $4)', [
        filterId,
        acme.accountId,
        'Has an a',
        JSON.stringify(conditions),
      ]);
      const saved = await contacts.savedFilter(dataSource.manager, acme.accountId, filterId);
      expect(await matching(acme, { letter: 'h' }, saved)).toEqual([grace]);
      await expect(contacts.savedFilter(dataSource.manager, other.accountId, filterId)).rejects.toMatchObject({
        errorName: 'resource_not_found',
      });
    });
  });

  describe('company by name', () => {
    it("matches the account's company in any letter case and keeps its spelling; another account gets its own", async () => {
      const db = dataSource.manager;
      const first = await contacts.companyByName(db, acme.accountId, 'Case Study Ltd', newId());
      expect(first).toMatchObject({ name: 'Case Study Ltd', created: true });
      expect(await contacts.companyByName(db, acme.accountId, 'CASE study LTD', newId())).toEqual({ ...first, created: false });
      expect(await contacts.companyById(db, acme.accountId, first.id)).toEqual({ id: first.id, name: 'Case Study Ltd' });
      expect(await contacts.companyById(db, other.accountId, first.id)).toBeUndefined();
      const theirs = await contacts.companyByName(db, other.accountId, 'case study ltd', newId());
      expect(theirs).toMatchObject({ name: 'case study ltd', created: true });
      expect(theirs.id).not.toBe(first.id);
    });

    it('two concurrent creators of one name share one company', async () => {
      const [a, b] = await Promise.all(
        ['Race Co', 'RACE CO'].map((name) => dataSource.transaction((tx) => contacts.companyByName(tx, acme.accountId, name, newId()))),
      );
      expect(a.id).toBe(b.id);
      expect([a.created, b.created].sort()).toEqual([false, true]);
    });

    it('renames a company on its contacts with their derived columns', async () => {
      const db = dataSource.manager;
      const company = await contacts.companyByName(db, acme.accountId, 'Old Name', newId());
      const id = await insert(acme, { first_name: 'Zed', company_id: company.id, company_name: company.name });
      const members = await contacts.companyMembers(db, acme.accountId, company.id);
      expect(members).toEqual([expect.objectContaining({ id, deleted: false })]);
      await contacts.renameCompany(db, 'Ångström AB', [{ id, ...derivedColumns({ ...members[0], company_name: 'Ångström AB' }) }]);
      const [row] = await many(db, sql`SELECT company_name, sort_name, letter FROM crm.contacts WHERE id = ${id}`);
      expect(row).toEqual({ company_name: 'Ångström AB', sort_name: 'angstrom ab zed', letter: 'a' });
    });
  });

  describe('bulk delete and undelete', () => {
    it('deletes only non-deleted contacts of the account and restores only recently deleted ones', async () => {
      const db = dataSource.manager;
      const ids = [await insert(acme, { last_name: 'Del A' }), await insert(acme, { last_name: 'Del B' })];
      const foreign = await insert(other, { last_name: 'Del C' });
      expect(await contacts.softDelete(db, acme.accountId, [...ids, foreign])).toEqual(
        expect.arrayContaining(ids.map((id) => ({ id, status_id: lead }))),
      );
      expect(await contacts.softDelete(db, acme.accountId, ids)).toEqual([]);
      expect(await contacts.lock(db, acme.accountId, ids[0])).toBeUndefined();
      // A deleted contact still marks its place in the name order.
      expect(await contacts.nameKey(db, acme.accountId, ids[0])).toEqual({ id: ids[0], sort_name: 'del a' });
      expect(await contacts.undelete(db, acme.accountId, ids, 0)).toEqual([]);
      expect((await contacts.undelete(db, acme.accountId, [...ids, foreign], 30)).sort()).toEqual([...ids].sort());
      expect(await contacts.undelete(db, acme.accountId, ids, 30)).toEqual([]);
      expect(await contacts.lock(db, acme.accountId, ids[0])).toMatchObject({ id: ids[0], last_name: 'Del A' });
    });
  });

  describe('tags', () => {
    it("resolves names to the account's tags in any letter case, creating the missing ones once", async () => {
      const db = dataSource.manager;
      const [vip] = await tags.ensure(db, acme.accountId, ['VIP'], [newId()]);
      const both = await tags.ensure(db, acme.accountId, ['vip', 'Lead'], [newId(), newId()]);
      expect(both).toHaveLength(2);
      expect(both).toContain(vip);
      expect(await tags.names(db, both)).toEqual(['Lead', 'VIP']);
      const [theirs] = await tags.ensure(db, other.accountId, ['vip'], [newId()]);
      expect(theirs).not.toBe(vip);
    });

    it('assigns a tag once, removes it by name in any case, and sets exactly the tags given', async () => {
      const db = dataSource.manager;
      const id = await insert(acme, { last_name: 'Tagged' });
      const [vip] = await tags.ensure(db, acme.accountId, ['Assign VIP'], [newId()]);
      const [lead] = await tags.ensure(db, acme.accountId, ['Assign Lead'], [newId()]);
      expect(await tags.add(db, acme.accountId, id, vip)).toBe(true);
      expect(await tags.add(db, acme.accountId, id, vip)).toBe(false);
      expect(await tags.removeByName(db, acme.accountId, id, 'assign lead')).toBe(false);
      await tags.set(db, acme.accountId, id, [lead]);
      expect(await tags.ofContact(db, id)).toEqual([lead]);
      expect(await tags.removeByName(db, acme.accountId, id, 'ASSIGN LEAD')).toBe(true);
      expect(await tags.ofContact(db, id)).toEqual([]);
    });

    it("gives a company's contacts its synced tags and status, only to those not deleted (or to the ones named)", async () => {
      const db = dataSource.manager;
      const company = await contacts.companyByName(db, acme.accountId, 'Sync Co', newId());
      const member = { company_id: company.id, company_name: company.name };
      const [a, b, gone] = [await insert(acme, member), await insert(acme, member), await insert(acme, member)];
      await contacts.softDelete(db, acme.accountId, [gone]);
      await tags.ensure(db, acme.accountId, ['Synced'], [newId()]);
      expect(await tags.addToCompany(db, company.id, ['synced'], [a])).toEqual([a]);
      expect((await tags.addToCompany(db, company.id, ['synced'])).sort()).toEqual([b]);
      const [status] = await many<{ id: string }>(
        db,
        sql`SELECT id FROM crm.statuses WHERE account_id = ${acme.accountId} AND NOT is_lead LIMIT 1`,
      );
      expect((await contacts.setCompanyStatus(db, company.id, status.id)).sort()).toEqual([a, b].sort());
      expect(await contacts.setCompanyStatus(db, company.id, status.id)).toEqual([]);
    });
  });

  describe('the cascade', () => {
    const owner = (): TestAccount => ({ accountId: acme.accountId, userId: cascadeOwner });
    let cascadeOwner: string;
    let keys: Array<{ sort_name: string; id: string }>;

    beforeAll(async () => {
      cascadeOwner = newId();
      const rows = Array.from({ length: 3000 }, (_, i) => {
        const state = {
          first_name: `F${i}`,
          last_name: `Seed ${String(i % 1000).padStart(4, '0')}`,
          company_name: '',
          phones: [],
          emails: [],
          urls: [],
        };
        return { id: newId(), ...state, ...derivedColumns(state) };
      });
      const column = <K extends keyof (typeof rows)[number]>(k: K) => rows.map((r) => r[k]);
      await dataSource.manager.query(
        `INSERT INTO crm.contacts (id, account_id, owner_id, status_id, first_name, last_name, sort_name, letter, search_text)
         SELECT v.id, $1, $2, $3, v.f, v.l, v.s, v.le, v.t FROM unnest($4::varchar[], $5::varchar[], $6::varchar[], $7::varchar[], $8::varchar[], $9::text[]) AS v(id, f, l, s, le, t)`,
        [
          acme.accountId,
          cascadeOwner,
          lead,
          column('id'),
          column('first_name'),
          column('last_name'),
          column('sort_name'),
          column('letter'),
          column('search_text'),
        ],
      );
      await dataSource.manager.query('ANALYZE crm.contacts');
      keys = rows
        .map((r) => ({ sort_name: r.sort_name, id: r.id }))
        .sort((x, y) => (x.sort_name + '\u0000' + x.id < y.sort_name + '\u0000' + y.id ? -1 : 1));
    });

    it('pages by (sort_name, id) after a key, and counts items_left from either end alike', async () => {
      const db = dataSource.manager;
      const q = contacts.filter(owner().accountId, owner().userId, {}, null);
      expect(await contacts.cascadeBatch(db, q, null, 100)).toEqual(keys.slice(0, 100));
      expect(await contacts.cascadeBatch(db, q, keys[1499], 100)).toEqual(keys.slice(1500, 1600));
      expect(await contacts.cascadeBatch(db, q, keys[2999], 100)).toEqual([]);
      for (const position of [0, 99, 250, 1500, 2998, 2999]) {
        const expected = keys.length - 1 - position;
        expect([position, await contacts.countAfter(db, q, keys[position], 500)]).toEqual([position, expected]);
        expect([position, await contacts.countAfter(db, q, keys[position])]).toEqual([position, expected]);
      }
    });

    it("reads a list page, the list's total and the page's wrappers in one statement, in either direction", async () => {
      const db = dataSource.manager;
      const q = contacts.filter(owner().accountId, owner().userId, {}, null);
      const read = (direction: 'asc' | 'desc', page: number, perPage: number) =>
        contactWrapperPage(db, owner().accountId, contacts.page(q, { key: 'name', direction }, page, perPage), owner().userId);
      const third = await read('asc', 3, 100);
      expect(third.total).toBe(3000);
      expect(third.ids).toEqual(keys.slice(200, 300).map((k) => k.id));
      expect(third.wrappers.map((w) => w.contact.id)).toEqual(third.ids);
      const backwards = await read('desc', 2, 7);
      expect(backwards.ids).toEqual(
        [...keys]
          .reverse()
          .slice(7, 14)
          .map((k) => k.id),
      );
      expect(backwards.wrappers.map((w) => w.contact.id)).toEqual(backwards.ids);
      expect(await read('asc', 31, 100)).toEqual({ ids: [], total: 3000, wrappers: [] });
    });

    it('reads a page deep into the list by its ids first (a deferred join), in either direction and by any order', async () => {
      const db = dataSource.manager;
      const q = contacts.filter(owner().accountId, owner().userId, {}, null);
      const read = (key: 'name' | 'created_at' | 'last_name', direction: 'asc' | 'desc', page: number, perPage: number) =>
        contactWrapperPage(db, owner().accountId, contacts.page(q, { key, direction }, page, perPage), owner().userId);
      // Offsets 1,100 and 2,950: past DEFERRED_PAGE_OFFSET, so read by the deferred join.
      expect(1100).toBeGreaterThanOrEqual(DEFERRED_PAGE_OFFSET);
      const deep = await read('name', 'asc', 12, 100);
      expect(deep.total).toBe(3000);
      expect(deep.ids).toEqual(keys.slice(1100, 1200).map((k) => k.id));
      expect(deep.wrappers.map((w) => w.contact.id)).toEqual(deep.ids);
      expect((await read('name', 'desc', 60, 50)).ids).toEqual(
        [...keys]
          .reverse()
          .slice(2950, 3000)
          .map((k) => k.id),
      );
      // Another order: the same rows as a plain ORDER BY over the table (the oracle), either way.
      for (const [key, expression] of [
        ['created_at', 'created_at'],
        ['last_name', 'lower(last_name)'],
      ] as const)
        for (const direction of ['asc', 'desc'] as const) {
          const expected: string[] = (
            await db.query(
              `SELECT id FROM crm.contacts WHERE account_id = $1 AND owner_id = $2 AND deleted_at IS NULL
               ORDER BY ${expression} ${direction}, sort_name ${direction}, id ${direction} LIMIT 100 OFFSET 1500`,
              [owner().accountId, owner().userId],
            )
          ).map((r: { id: string }) => r.id);
          expect([key, direction, (await read(key, direction, 16, 100)).ids]).toEqual([key, direction, expected]);
        }
      // Past the end: nothing, and the total still.
      expect(await read('name', 'asc', 40, 100)).toEqual({ ids: [], total: 3000, wrappers: [] });
      // The deferred form: the page's ids from a subquery, its rows joined to them by id.
      const deferred = contacts.page(q, { key: 'name', direction: 'asc' }, 12, 100).rows.compile().text;
      expect(deferred).toMatch(/JOIN LATERAL \(SELECT \* FROM crm\.contacts c WHERE c\.id = p\.id LIMIT 1\) c/);
      expect(contacts.page(q, { key: 'name', direction: 'asc' }, 10, 100).rows.compile().text).not.toMatch(/JOIN/);
    });

    it('reads a search from its matches alone: pages, totals, the cascade and other filters as over the table, no lookup by id', async () => {
      const db = dataSource.manager;
      // Terms of three characters or more go through the trigram CTE; "seed 00" matches 300 of the 3000.
      const search = 'SEED 00';
      const deleted = keys.find((k) => k.sort_name.toLowerCase().includes('seed 00'))!;
      await db.query('UPDATE crm.contacts SET deleted_at = now() WHERE id = $1', [deleted.id]);
      await insert(other, { first_name: 'F1', last_name: 'Seed 0001' });
      try {
        // The oracle: the same rows read from the table by a plain LIKE, in the name order.
        const expected: Array<{ sort_name: string; id: string }> = (
          await db.query(
            `SELECT id, sort_name FROM crm.contacts WHERE account_id = $1 AND owner_id = $2 AND deleted_at IS NULL AND search_text LIKE '%seed 00%'
             ORDER BY sort_name, id`,
            [owner().accountId, owner().userId],
          )
        ).map((r: { id: string; sort_name: string }) => ({ sort_name: r.sort_name, id: r.id }));
        expect(expected.length).toBe(299);
        const q = contacts.filter(owner().accountId, owner().userId, { search }, null);
        const page = (n: number, perPage = 100, direction: 'asc' | 'desc' = 'asc') =>
          contactWrapperPage(db, owner().accountId, contacts.page(q, { key: 'name', direction }, n, perPage), owner().userId);
        const second = await page(2);
        expect(second.total).toBe(299);
        expect(second.ids).toEqual(expected.slice(100, 200).map((k) => k.id));
        expect(second.wrappers.map((w) => w.contact.id)).toEqual(second.ids);
        expect((await page(1, 10, 'desc')).ids).toEqual(
          [...expected]
            .reverse()
            .slice(0, 10)
            .map((k) => k.id),
        );
        expect(await page(4)).toEqual({ ids: [], total: 299, wrappers: [] });
        expect(await contacts.count(db, q)).toBe(299);
        // The cascade over the search: batches after a key and items_left.
        expect(await contacts.cascadeBatch(db, q, expected[49], 25)).toEqual(expected.slice(50, 75));
        expect(await contacts.countAfter(db, q, expected[49])).toBe(299 - 50);
        expect(await contacts.countAfter(db, q, expected[49], 100)).toBe(299 - 50);
        // Another filter on top: the matches whose letter is "s" (all of them) and none starred.
        const lettered = contacts.filter(owner().accountId, owner().userId, { search, letter: 's', starred: true }, null);
        expect(await contacts.count(db, lettered)).toBe(0);
        // The statement reads the matches once (by the trigram index, or a scan on a table this
        // small) and takes its contacts from them: never looked up again by id.
        const [plan] = await many(db, sql`EXPLAIN (FORMAT JSON) ${contacts.cascadeBatchStatement(q, null, 100)}`);
        const text = JSON.stringify(plan);
        expect(text).toMatch(/"CTE Name":"search_hits","Alias":"c"/);
        expect(text).not.toContain('"Index Name":"contacts_pkey"');
      } finally {
        await db.query('UPDATE crm.contacts SET deleted_at = NULL WHERE id = $1', [deleted.id]);
      }
    });

    it('reads a batch on the name index with the keyset bound as an index condition, without sorting', async () => {
      const q = contacts.filter(owner().accountId, owner().userId, {}, null);
      const [plan] = await many(dataSource.manager, sql`EXPLAIN (FORMAT JSON) ${contacts.cascadeBatchStatement(q, keys[1500], 100)}`);
      const text = JSON.stringify(plan);
      expect(text).toMatch(/"Index Name":"contacts_(owner_)?name_idx"/);
      expect(text).toMatch(/"Index Cond":"[^"]*ROW\(\(sort_name\)::text, \(id\)::text\) > ROW/);
      expect(text).not.toContain('"Sort"');
    });
  });
});
