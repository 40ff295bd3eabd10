import 'reflect-metadata';
import { newId } from '@crm/common';
import {
  CreateRelationshipTypeRequest,
  ErrorName,
  RelationshipTypeIdRequest,
  type Caller,
  type ProvisionAccountMessage,
} from '@crm/contracts';
import { runMigrations } from '@crm/database';
import { createTestDatabase, type TestDatabase } from '@crm/testing';
import type { DataSource } from 'typeorm';
import { AccountsRepository } from '../accounts/accounts.repository';
import { AccountsService } from '../accounts/accounts.service';
import { CrmCoreConfig } from '../config/crm-core.config';
import { crmDataSource } from '../database/crm-data-source';
import { withContracts, type RawPayloadCalls } from '../common/with-contracts.spec-helpers';
import { RelationshipTypesRepository } from './relationship-types.repository';
import { RelationshipTypesService } from './relationship-types.service';

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

describe('relationship types (real PostgreSQL)', () => {
  let db: TestDatabase;
  let dataSource: DataSource;
  let types: RawPayloadCalls<RelationshipTypesService, 'create' | 'delete'>;
  let acme: Caller;
  let other: Caller;

  beforeAll(async () => {
    db = await createTestDatabase('crm_reltypes');
    const config = Object.assign(new CrmCoreConfig(), { DATABASE_URL: db.url });
    dataSource = crmDataSource(config);
    await runMigrations(dataSource);
    const accounts = new AccountsService(dataSource, new AccountsRepository(), config);
    const [a, b] = [provisionMessage('Acme'), provisionMessage('Other')];
    await accounts.provision(a);
    await accounts.provision(b);
    acme = { account_id: a.account.id, user_id: a.admin.id, role: 'admin', auth_method: 'api_key', scopes: ['crm'] };
    other = { account_id: b.account.id, user_id: b.admin.id, role: 'admin', auth_method: 'api_key', scopes: ['crm'] };
    types = withContracts(new RelationshipTypesService(dataSource, new RelationshipTypesRepository()), {
      create: CreateRelationshipTypeRequest,
      delete: RelationshipTypeIdRequest,
    });
  });

  afterAll(async () => {
    if (dataSource?.isInitialized) await dataSource.destroy();
    await db?.drop();
  });

  const relationships = async (typeId: string) =>
    (await dataSource.query('SELECT count(*)::int AS n FROM crm.contact_relationships WHERE relationship_type_id = $1', [typeId]))[0]
      .n as number;

  it('deletes a type with every relationship using it, soft-deleted ones included, and nothing else', async () => {
    const { relationship_type: doomed } = await types.create(acme, { variants: [{ name: 'Manager' }, { name: 'Report' }] });
    const { relationship_type: kept } = await types.create(acme, { variants: [{ name: 'Sibling' }] });
    const insert = (typeId: string, variantId: string | null, deletedAt: Date | null) =>
      dataSource.query(
        'INSERT INTO crm.contact_relationships (id, account_id, relationship_type_id, contact_id, related_contact_id, variant_id, deleted_at) VALUES ($1, $2, $3, $4, $5, $6, $7)',
        [newId(), acme.account_id, typeId, newId(), newId(), variantId, deletedAt],
      );
    await insert(doomed.id, doomed.relationship_variants[1].id, null);
    await insert(doomed.id, doomed.relationship_variants[0].id, new Date());
    await insert(kept.id, null, null);
    expect(await relationships(doomed.id)).toBe(2);

    await expect(types.delete(other, { relationship_type_id: doomed.id })).rejects.toMatchObject({ errorName: ErrorName.ResourceNotFound });
    expect(await relationships(doomed.id)).toBe(2);

    await expect(types.delete(acme, { relationship_type_id: doomed.id })).resolves.toEqual({});
    expect(await relationships(doomed.id)).toBe(0);
    expect(await relationships(kept.id)).toBe(1);
    const [{ n }] = await dataSource.query('SELECT count(*)::int AS n FROM crm.relationship_variants WHERE relationship_type_id = $1', [
      doomed.id,
    ]);
    expect(n).toBe(0);
  });

  it('lets exactly one of two concurrent creates with the same label win', async () => {
    const results = await Promise.allSettled([
      types.create(acme, { variants: [{ name: 'Partner' }] }),
      types.create(acme, { variants: [{ name: 'partner' }] }),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const failed = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(failed.reason).toMatchObject({ errorName: ErrorName.DuplicatedEntity });
  });

  it('refuses writes from non-admins', async () => {
    await expect(types.create({ ...acme, role: 'user' }, { variants: [{ name: 'Cousin' }] })).rejects.toMatchObject({
      errorName: ErrorName.NoPermission,
    });
  });
});
