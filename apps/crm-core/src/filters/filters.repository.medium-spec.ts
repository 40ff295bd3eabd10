import { newId } from '@crm/common';
import { ErrorName, type Caller, type FilterConditionDto } from '@crm/contracts';
import { createTestDatabase } from '@crm/testing';
import { openMediumDatabase, type MediumDatabase } from '../accounts/accounts.medium-fixture';
import { execute, many, sql } from '../common/sql';
import { FiltersRepository, savedFilterSql } from './filters.repository';

/** The condition a saved filter stands for, run against the real PostgreSQL. */
describe('FiltersRepository (real PostgreSQL)', () => {
  const repository = new FiltersRepository();
  let fx: MediumDatabase;
  let acme: Caller;
  let other: Caller;
  let size: string;
  const c: Record<string, string> = {};

  async function contact(
    name: string,
    seed: { emails?: string[]; custom?: Record<string, unknown>; starred?: boolean; deleted?: boolean },
  ) {
    const id = newId();
    const sortName = name.toLowerCase();
    const emails = JSON.stringify((seed.emails ?? []).map((value) => ({ type: 'work', value })));
    await execute(
      fx.dataSource.manager,
      sql`INSERT INTO crm.contacts (id, account_id, owner_id, last_name, status_id, starred, emails, custom_fields, sort_name, letter, deleted_at)
          VALUES (${id}, ${acme.account_id}, ${acme.user_id}, ${name}, (SELECT id FROM crm.statuses WHERE account_id = ${acme.account_id} AND is_lead),
                  ${seed.starred ?? false}, ${emails}::jsonb, ${JSON.stringify(seed.custom ?? {})}::jsonb, ${sortName}, ${sortName[0]},
                  ${seed.deleted ? new Date() : null}::timestamptz)`,
    );
    return id;
  }

  /** The ids of acme's live contacts a new saved filter with `conditions` selects, by name. */
  async function matching(conditions: FilterConditionDto[]): Promise<string[]> {
    const id = newId();
    const db = fx.dataSource.manager;
    await repository.insert(db, acme.account_id, id, `f-${id}`, conditions);
    const condition = await savedFilterSql(db, acme.account_id, id);
    const rows = await many<{ id: string }>(
      db,
      sql`SELECT c.id FROM crm.contacts c WHERE c.account_id = ${acme.account_id} AND c.deleted_at IS NULL AND ${condition} ORDER BY c.sort_name`,
    );
    return rows.map((r) => r.id);
  }

  beforeAll(async () => {
    fx = await openMediumDatabase(await createTestDatabase('crm_filters_repository'));
    acme = await fx.newAccount('Acme');
    other = await fx.newAccount('Other');
    size = newId();
    await execute(
      fx.dataSource.manager,
      sql`INSERT INTO crm.fields (id, account_id, field_set, name, type, position) VALUES (${size}, ${acme.account_id}, 'custom_fields', 'Size', 'number', 1)`,
    );
    c.ann = await contact('Smith', { emails: ['Ann@Acme.example'], custom: { [size]: 50 }, starred: true });
    c.bob = await contact('Smithers', { custom: { [size]: 5 } });
    c.cy = await contact('Jones_100%', {});
    c.gone = await contact('Smith', { deleted: true });
  });

  afterAll(async () => {
    await fx?.close();
  });

  it('selects exactly the contacts the conditions describe; values are bound, LIKE wildcards literal', async () => {
    expect(await matching([])).toEqual([c.cy, c.ann, c.bob]);
    expect(await matching([{ field: 'last_name', operator: 'starts_with', value: 'smith' }])).toEqual([c.ann, c.bob]);
    expect(await matching([{ field: 'last_name', operator: 'contains', value: '_100%' }])).toEqual([c.cy]);
    expect(await matching([{ field: 'last_name', operator: 'contains', value: "'; DROP TABLE crm.contacts; --" }])).toEqual([]);
    expect(await matching([{ field: 'email', operator: 'equals', value: 'ann@acme.example' }])).toEqual([c.ann]);
    expect(await matching([{ field: 'starred', operator: 'is', value: false }])).toEqual([c.cy, c.bob]);
    expect(
      await matching([{ field: 'custom_field', custom_field_id: size, operator: 'greater_than', value: 10 } as FilterConditionDto]),
    ).toEqual([c.ann]);
  });

  it('treats a deleted custom field as empty on every contact', async () => {
    const id = newId();
    const db = fx.dataSource.manager;
    const field = newId();
    await repository.insert(db, acme.account_id, id, `gone-${id}`, [
      { field: 'custom_field', custom_field_id: field, operator: 'is_empty' } as FilterConditionDto,
    ]);
    expect((await savedFilterSql(db, acme.account_id, id)).compile()).toEqual({ text: '(TRUE)', values: [] });
  });

  it("is 404 for another account's filter or a malformed id", async () => {
    const id = newId();
    await repository.insert(fx.dataSource.manager, acme.account_id, id, `mine-${id}`, []);
    await expect(savedFilterSql(fx.dataSource.manager, other.account_id, id)).rejects.toMatchObject({
      errorName: ErrorName.ResourceNotFound,
    });
    await expect(savedFilterSql(fx.dataSource.manager, acme.account_id, 'not-an-id')).rejects.toMatchObject({
      errorName: ErrorName.ResourceNotFound,
    });
  });

  it("finds only the account's own referenced records and custom fields", async () => {
    const db = fx.dataSource.manager;
    expect(await repository.existingIds(db, acme.account_id, 'owner_id', [acme.user_id, other.user_id])).toEqual(new Set([acme.user_id]));
    expect(await repository.customFields(db, acme.account_id, [size, newId()])).toEqual(
      new Map([[size, { type: 'number', choices: null }]]),
    );
    expect(await repository.customFields(db, other.account_id, [size])).toEqual(new Map());
  });
});
