import { newId } from '@crm/common';
import { createTestDatabase } from '@crm/testing';
import type { DataSource } from 'typeorm';
import { isUniqueViolation } from '../common/unique-violation';
import { ContactsRepository } from '../contacts/contacts.repository';
import { openMediumDatabase, type TestAccount } from '../contacts/contacts.medium-fixture';
import { CompaniesRepository, COMPANY_NAME_INDEX } from './companies.repository';
import { emptyAddress } from './company.rules';

describe('CompaniesRepository (real PostgreSQL)', () => {
  let dataSource: DataSource;
  let close: () => Promise<void>;
  let acme: TestAccount;
  let other: TestAccount;
  const companies = new CompaniesRepository();
  const contacts = new ContactsRepository();
  const byName = { key: 'name', direction: 'asc' } as const;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    let accounts: [TestAccount, TestAccount];
    ({ dataSource, accounts, close } = await openMediumDatabase(await createTestDatabase('crm_companies_repo')));
    [acme, other] = accounts;
    // Companies are created through contacts' company_name (the contacts repository).
    for (const name of ['beta Works', 'Alpha Labs', '100% Cotton', 'Gamma']) {
      ids[name] = (await contacts.companyByName(dataSource.manager, acme.accountId, name, newId())).id;
    }
    await contacts.companyByName(dataSource.manager, other.accountId, 'Alpha Labs', newId());
  });

  afterAll(async () => close?.());

  it("lists the account's companies by name in any letter case, ties by id, with the total", async () => {
    const page = await companies.page(dataSource.manager, acme.accountId, {}, byName, 1, 2);
    expect(page).toEqual({ total: 4, ids: [ids['100% Cotton'], ids['Alpha Labs']] });
    expect(await companies.page(dataSource.manager, acme.accountId, {}, byName, 2, 2)).toEqual({
      total: 4,
      ids: [ids['beta Works'], ids.Gamma],
    });
    const desc = await companies.page(dataSource.manager, acme.accountId, {}, { key: 'name', direction: 'desc' }, 1, 10);
    expect(desc.ids[0]).toBe(ids.Gamma);
  });

  it('searches a part of the name in any letter case, wildcards literally', async () => {
    const search = (s: string) => companies.page(dataSource.manager, acme.accountId, { search: s }, byName, 1, 10);
    expect(await search('LAB')).toEqual({ total: 1, ids: [ids['Alpha Labs']] });
    expect(await search('0%')).toEqual({ total: 1, ids: [ids['100% Cotton']] });
    expect(await search('a_')).toEqual({ total: 0, ids: [] });
  });

  it('applies the time filters', async () => {
    const page = (filter: object) => companies.page(dataSource.manager, acme.accountId, filter, byName, 1, 10);
    expect((await page({ since: '2000-01-01' })).total).toBe(4);
    expect((await page({ until: '2000-01-01' })).total).toBe(0);
    expect((await page({ unmodified_since: '1' })).total).toBe(0);
  });

  it('locks and updates the writable state, JSON columns included', async () => {
    const id = ids.Gamma;
    await dataSource.transaction(async (tx) => {
      const current = await companies.lock(tx, acme.accountId, id);
      expect(current).toMatchObject({ name: 'Gamma', syncing_tags: false, synced_tags: [] });
      await companies.update(tx, acme.accountId, id, {
        ...current!,
        description: 'Rays',
        address: { ...emptyAddress(), city: 'Cork' },
        company_fields: { f: 1 },
        synced_tags: ['VIP'],
      });
    });
    expect(await companies.lock(dataSource.manager, acme.accountId, id)).toMatchObject({
      description: 'Rays',
      address: { city: 'Cork', country_code: '' },
      company_fields: { f: 1 },
      synced_tags: ['VIP'],
    });
    expect(await companies.lock(dataSource.manager, other.accountId, id)).toBeUndefined();
  });

  it("refuses a rename onto another company's name in any letter case (the unique index)", async () => {
    const current = await companies.lock(dataSource.manager, acme.accountId, ids.Gamma);
    const error = await companies
      .update(dataSource.manager, acme.accountId, ids.Gamma, { ...current!, name: 'ALPHA labs' })
      .catch((e) => e);
    expect(isUniqueViolation(error, COMPANY_NAME_INDEX)).toBe(true);
  });

  it("knows the account's statuses", async () => {
    const lead = await contacts.leadStatusId(dataSource.manager, acme.accountId);
    expect(await companies.statusExists(dataSource.manager, acme.accountId, lead)).toBe(true);
    expect(await companies.statusExists(dataSource.manager, other.accountId, lead)).toBe(false);
  });
});
