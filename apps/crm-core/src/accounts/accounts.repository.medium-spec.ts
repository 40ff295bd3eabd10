import { newId } from '@crm/common';
import type { Caller } from '@crm/contracts';
import { createTestDatabase } from '@crm/testing';
import { many, sql } from '../common/sql';
import { DEFAULT_STATUSES } from './account.rules';
import { openMediumDatabase, type MediumDatabase } from './accounts.medium-fixture';
import { AccountsRepository } from './accounts.repository';

/** Provisioning statements against the real PostgreSQL: idempotent, scoped to an existing account. */
describe('AccountsRepository (real PostgreSQL)', () => {
  let fx: MediumDatabase;
  let repository: AccountsRepository;
  let acme: Caller;

  beforeAll(async () => {
    fx = await openMediumDatabase(await createTestDatabase('crm_accounts_repository'));
    repository = new AccountsRepository();
    acme = await fx.newAccount('Acme');
  });

  afterAll(async () => {
    await fx?.close();
  });

  it('seeds the statuses (lead first) and both default pipelines once, however often it runs', async () => {
    await fx.dataSource.transaction((tx) => repository.seedDefaults(tx, acme.account_id));
    await fx.dataSource.transaction((tx) => repository.seedDefaults(tx, acme.account_id));
    const db = fx.dataSource.manager;
    const statuses = await many<{ status: string; text: string; is_lead: boolean }>(
      db,
      sql`SELECT status, text, is_lead FROM crm.statuses WHERE account_id = ${acme.account_id} ORDER BY position`,
    );
    expect(statuses.map((s) => [s.status, s.text])).toEqual(DEFAULT_STATUSES.map((s) => [s.status, s.text]));
    expect(statuses.map((s) => s.status)).toEqual(['lead', 'prospect', 'custom1', 'customer', 'inactive']);
    expect(statuses.map((s) => s.is_lead)).toEqual([true, false, false, false, false]);
    // Trial took custom1: the account's next custom status is custom2.
    const [account] = await many<{ made: number }>(
      db,
      sql`SELECT custom_statuses_made AS made FROM crm.accounts WHERE id = ${acme.account_id}`,
    );
    expect(account.made).toBe(1);
    const pipelines = await many<{ kind: string }>(
      db,
      sql`SELECT kind FROM crm.pipelines WHERE account_id = ${acme.account_id} AND is_default ORDER BY kind`,
    );
    expect(pipelines.map((p) => p.kind)).toEqual(['pipeline', 'sales']);
  });

  it('makes a user only in an existing account, taking its company name from it; a repeat updates the profile', async () => {
    const user = {
      id: newId(),
      account_id: acme.account_id,
      first_name: 'Uma',
      last_name: 'Lee',
      email: 'uma@example.test',
      role: 'user' as const,
      account_rights: [],
      permissions: [],
    };
    const db = fx.dataSource.manager;
    await expect(repository.upsertUser(db, { ...user, account_id: newId() }, 'x@bcc.test')).resolves.toBe(false);
    await expect(repository.upsertUser(db, user, 'uma@bcc.test')).resolves.toBe(true);
    await expect(repository.upsertUser(db, { ...user, last_name: 'Long' }, 'uma@bcc.test')).resolves.toBe(true);
    const [row] = await many<{ last_name: string; company_name: string; bcc_email: string }>(
      db,
      sql`SELECT last_name, company_name, bcc_email FROM crm.users WHERE id = ${user.id}`,
    );
    expect(row).toEqual({ last_name: 'Long', company_name: 'Acme', bcc_email: 'uma@bcc.test' });
  });
});
