import { api, type CreatedAccount } from '@crm/testing';
import { setupE2e } from './setup';

type TypeBody = {
  data: {
    relationship_type: {
      id: string;
      symmetrical: boolean;
      relationship_variants: Array<{ id: string; name: string }>;
      created_at: string;
      modified_at: string;
    };
  };
};

/** /relationship_types over HTTP (decisions.md "Configuration and users"). */
describe('relationship types (e2e)', () => {
  const { services, admin, stranger, member } = setupE2e({ stranger: true, member: true });

  const call = (who: CreatedAccount) => api(services, who);

  it('creates symmetrical and directional types and reads them back', async () => {
    const sym = await call(admin)<TypeBody>('POST', '/relationship_types', { variants: [{ name: 'Colleague' }] });
    expect(sym.status).toBe(201);
    expect(sym.body.data.relationship_type).toMatchObject({
      symmetrical: true,
      relationship_variants: [{ id: expect.stringMatching(/^[0-9a-f]{24}$/), name: 'Colleague' }],
    });
    expect(Object.keys(sym.body.data.relationship_type).sort()).toEqual([
      'created_at',
      'id',
      'modified_at',
      'relationship_variants',
      'symmetrical',
    ]);

    const dir = await call(admin)<TypeBody>('POST', '/relationship_types', { variants: [{ name: ' Manager ' }, { name: 'Report' }] });
    expect(dir.status).toBe(201);
    expect(dir.body.data.relationship_type.symmetrical).toBe(false);
    expect(dir.body.data.relationship_type.relationship_variants.map((v) => v.name)).toEqual(['Manager', 'Report']);

    const got = await call(member)<TypeBody>('GET', `/relationship_types/${dir.body.data.relationship_type.id}.json`);
    expect(got.status).toBe(200);
    expect(got.body.data.relationship_type).toEqual(dir.body.data.relationship_type);

    const list = await call(member)<{
      data: { relationship_types: Array<{ relationship_type: { id: string } }>; total_count: number; max_page: number; per_page: number };
    }>('GET', '/relationship_types?per_page=1&page=2');
    expect(list.status).toBe(200);
    expect(list.body.data).toMatchObject({ total_count: 2, per_page: 1, max_page: 2, page: 2 });
    expect(list.body.data.relationship_types.map((t) => t.relationship_type.id)).toEqual([dir.body.data.relationship_type.id]);
  });

  it('refuses bad variant sets and duplicate labels', async () => {
    for (const body of [
      {},
      { variants: [] },
      { variants: [{ name: 'A' }, { name: 'B' }, { name: 'C' }] },
      { variants: [{ name: '' }] },
      { variants: 'x' },
      { variants: [{ name: 'Same' }, { name: 'same' }] },
    ]) {
      const res = await call(admin)('POST', '/relationship_types', body);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ error_name: 'invalid_request_data', errors: expect.any(Object) });
      expect(Object.keys((res.body as { errors: object }).errors).some((k) => k.startsWith('variants'))).toBe(true);
    }
    const dup = await call(admin)('POST', '/relationship_types', { variants: [{ name: 'COLLEAGUE' }] });
    expect(dup.status).toBe(400);
    expect(dup.body).toMatchObject({ error_name: 'duplicated_entity' });
    // Another account may use the same label.
    expect((await call(stranger)('POST', '/relationship_types', { variants: [{ name: 'Colleague' }] })).status).toBe(201);
  });

  it('renames the complete variant set only', async () => {
    const created = await call(admin)<TypeBody>('POST', '/relationship_types', { variants: [{ name: 'Parent' }, { name: 'Child' }] });
    const type = created.body.data.relationship_type;
    const [p, c] = type.relationship_variants;
    const swapped = await call(admin)<TypeBody>('PUT', `/relationship_types/${type.id}`, {
      variants: [
        { id: p.id, name: 'Child' },
        { id: c.id, name: 'Parent' },
      ],
    });
    expect(swapped.status).toBe(200);
    expect(swapped.body.data.relationship_type.relationship_variants).toEqual([
      { id: p.id, name: 'Child' },
      { id: c.id, name: 'Parent' },
    ]);
    expect(swapped.body.data.relationship_type.modified_at >= type.modified_at).toBe(true);

    const bad = [
      { variants: [{ id: p.id, name: 'Only one' }] },
      {
        variants: [
          { id: p.id, name: 'X' },
          { id: c.id, name: 'Y' },
          { id: p.id, name: 'Z' },
        ],
      },
      {
        variants: [
          { id: p.id, name: 'X' },
          { id: 'f'.repeat(24), name: 'Y' },
        ],
      },
      {
        variants: [
          { id: p.id, name: 'X' },
          { id: p.id, name: 'Y' },
        ],
      },
      { variants: [{ name: 'no id' }] },
    ];
    for (const body of bad) {
      const res = await call(admin)('PUT', `/relationship_types/${type.id}`, body);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ error_name: 'invalid_request_data' });
    }
    const sym = (await call(admin)<TypeBody>('POST', '/relationship_types', { variants: [{ name: 'Friend' }] })).body.data
      .relationship_type;
    const toDirectional = await call(admin)('PUT', `/relationship_types/${sym.id}`, {
      variants: [
        { id: sym.relationship_variants[0].id, name: 'Friend' },
        { id: p.id, name: 'Other' },
      ],
    });
    expect(toDirectional.status).toBe(400);
    const taken = await call(admin)('PUT', `/relationship_types/${sym.id}`, {
      variants: [{ id: sym.relationship_variants[0].id, name: 'Colleague' }],
    });
    expect(taken.body).toMatchObject({ error_name: 'duplicated_entity' });
    // Nothing changed by the refused requests.
    expect(
      (await call(admin)<TypeBody>('GET', `/relationship_types/${type.id}`)).body.data.relationship_type.relationship_variants,
    ).toEqual([
      { id: p.id, name: 'Child' },
      { id: c.id, name: 'Parent' },
    ]);
  });

  it('keeps writes for admins and records inside their account', async () => {
    const type = (await call(admin)<TypeBody>('POST', '/relationship_types', { variants: [{ name: 'Mentor' }, { name: 'Mentee' }] })).body
      .data.relationship_type;
    for (const [method, path, body] of [
      ['POST', '/relationship_types', { variants: [{ name: 'Neighbour' }] }],
      ['PUT', `/relationship_types/${type.id}`, { variants: type.relationship_variants }],
      ['DELETE', `/relationship_types/${type.id}`, undefined],
    ] as const) {
      const res = await call(member)(method, path, body);
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ error_name: 'no_permission_to_complete_action' });
    }
    for (const [method, body] of [
      ['GET', undefined],
      ['PUT', { variants: type.relationship_variants }],
      ['DELETE', undefined],
    ] as const) {
      const res = await call(stranger)(method, `/relationship_types/${type.id}`, body);
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ error_name: 'resource_not_found' });
    }
    expect((await call(admin)('GET', '/relationship_types/not-an-id')).status).toBe(404);

    const deleted = await call(admin)('DELETE', `/relationship_types/${type.id}`);
    expect(deleted.status).toBe(200);
    expect((await call(admin)('GET', `/relationship_types/${type.id}`)).status).toBe(404);
    expect((await call(admin)('DELETE', `/relationship_types/${type.id}`)).status).toBe(404);
    // Its labels are free again.
    expect((await call(admin)('POST', '/relationship_types', { variants: [{ name: 'Mentor' }] })).status).toBe(201);
  });

  it('documents every route in the OpenAPI document', async () => {
    const doc = (await (await fetch(`${services.gatewayUrl}/api/v3/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    expect(Object.keys(doc.paths['/relationship_types']).sort()).toEqual(['get', 'post']);
    expect(Object.keys(doc.paths['/relationship_types/{relationship_type_id}']).sort()).toEqual(['delete', 'get', 'put']);
  });
});
