import { newId } from '@crm/common';
import { createTestDatabase } from '@crm/testing';
import { openMediumDatabase, type MediumDatabase } from '../accounts/accounts.medium-fixture';
import { StatusTypeKeys1764800300000 } from './1764800300000-status-type-keys';

type Row = { status: string; text: string; is_lead: boolean };

/**
 * Migration 1764800300000 on statuses shaped as before it (status the name, text a short label):
 * its own down() puts the table back in that shape, the rows are written, up() runs again.
 */
describe('migration StatusTypeKeys1764800300000 (real PostgreSQL)', () => {
  let fx: MediumDatabase;
  const migration = new StatusTypeKeys1764800300000();

  beforeAll(async () => {
    fx = await openMediumDatabase(await createTestDatabase('crm_status_type_keys'));
  });

  afterAll(async () => {
    await fx?.close();
  });

  const run = async (step: 'up' | 'down') => {
    const runner = fx.dataSource.createQueryRunner();
    try {
      await migration[step](runner);
    } finally {
      await runner.release();
    }
  };

  const statuses = (accountId: string): Promise<Row[]> =>
    fx.dataSource.query('SELECT status, text, is_lead FROM crm.statuses WHERE account_id = $1 ORDER BY position, created_at, id', [
      accountId,
    ]);

  it('keys the seeded statuses, numbers the others per account and moves every name, whole, to text', async () => {
    const acme = await fx.newAccount('Acme');
    const globex = await fx.newAccount('Globex');
    await run('down');
    expect((await statuses(acme.account_id)).map((s) => [s.status, s.text])).toEqual([
      ['Lead', 'LE'],
      ['Prospect', 'PR'],
      ['Trial', 'TR'],
      ['Customer', 'CU'],
      ['Inactive', 'IN'],
    ]);
    const long = 'A status name much longer than twenty characters';
    const add = (accountId: string, name: string, position: number) =>
      fx.dataSource.query(`INSERT INTO crm.statuses (id, account_id, status, text, position) VALUES ($1, $2, $3, 'XX', $4)`, [
        newId(),
        accountId,
        name,
        position,
      ]);
    await add(acme.account_id, long, 5);
    await add(acme.account_id, 'GENERAL', 6);
    await add(acme.account_id, 'Hot', 7);
    // The lead renamed and a status now named "Lead": the lead stays `lead`, the other is custom.
    await fx.dataSource.query(`UPDATE crm.statuses SET status = 'New' WHERE account_id = $1 AND is_lead`, [globex.account_id]);
    await add(globex.account_id, 'Lead', 5);

    await run('up');

    expect((await statuses(acme.account_id)).map((s) => [s.status, s.text])).toEqual([
      ['lead', 'Lead'],
      ['prospect', 'Prospect'],
      ['custom1', 'Trial'],
      ['customer', 'Customer'],
      ['inactive', 'Inactive'],
      ['custom2', long],
      ['general', 'GENERAL'],
      ['custom3', 'Hot'],
    ]);
    expect((await statuses(globex.account_id)).map((s) => [s.status, s.text])).toEqual([
      ['lead', 'New'],
      ['prospect', 'Prospect'],
      ['custom1', 'Trial'],
      ['customer', 'Customer'],
      ['inactive', 'Inactive'],
      ['custom2', 'Lead'],
    ]);
    const made = await fx.dataSource.query('SELECT id, custom_statuses_made FROM crm.accounts WHERE id = ANY($1) ORDER BY name', [
      [acme.account_id, globex.account_id],
    ]);
    expect(made.map((a: { custom_statuses_made: number }) => a.custom_statuses_made)).toEqual([3, 2]);
  });

  it('keeps names unique regardless of case and keys unique, per account', async () => {
    const acme = await fx.newAccount('Initech');
    const insert = (status: string, text: string) =>
      fx.dataSource.query(`INSERT INTO crm.statuses (id, account_id, status, text) VALUES ($1, $2, $3, $4)`, [
        newId(),
        acme.account_id,
        status,
        text,
      ]);
    await expect(insert('custom9', 'TRIAL')).rejects.toMatchObject({ driverError: { constraint: 'statuses_text_uq' } });
    await expect(insert('custom1', 'Other')).rejects.toMatchObject({ driverError: { constraint: 'statuses_key_uq' } });
  });
});
