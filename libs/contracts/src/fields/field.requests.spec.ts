import { API_ROUTES } from '../routes/api-routes';
import { Subjects } from '../rpc/subjects';
import { parseContract } from '../validation/parse-contract';
import { FIELD_SET_INFO, FIELD_SETS } from './field.dto';
import { CreateFieldRequest, ListFieldsRequest, PatchCustomFieldRequest, UpdateDealFieldRequest } from './field.requests';
import { FIELD_ROUTES } from './field.routes';

const invalid = (errors: Record<string, unknown>) => expect.objectContaining({ errorName: 'invalid_request_data', errors });

describe('field request contracts', () => {
  it('list: paging defaults, optional sort, order (any case) and type filter', () => {
    expect({ ...parseContract(ListFieldsRequest, {}) }).toEqual({ page: 1, per_page: 10 });
    expect(parseContract(ListFieldsRequest, { sort_by: 'created_at', order: 'DESC', type: 'date', per_page: '500' })).toMatchObject({
      sort_by: 'created_at',
      order: 'desc',
      type: 'date',
      per_page: 100,
    });
    expect(() => parseContract(ListFieldsRequest, { sort_by: 'name' })).toThrow(invalid({ sort_by: expect.any(String) }));
    expect(() => parseContract(ListFieldsRequest, { order: 'up' })).toThrow(invalid({ order: expect.any(String) }));
    expect(() => parseContract(ListFieldsRequest, { type: 'colour' })).toThrow(invalid({ type: expect.stringContaining('select_box') }));
    expect(() => parseContract(ListFieldsRequest, { page: '0' })).toThrow(invalid({ page: expect.any(String) }));
  });

  it('create: name (trimmed) and type required, position an integer, choices strings', () => {
    expect(parseContract(CreateFieldRequest, { name: '  Size ', type: 'select_box', choices: [' S ', 'M'], extra: 1 })).toEqual({
      name: 'Size',
      type: 'select_box',
      choices: ['S', 'M'],
    });
    expect(() => parseContract(CreateFieldRequest, {})).toThrow(invalid({ name: expect.any(String), type: expect.any(String) }));
    expect(() => parseContract(CreateFieldRequest, { name: '   ', type: 'text' })).toThrow(invalid({ name: expect.any(String) }));
    expect(() => parseContract(CreateFieldRequest, { name: 'x'.repeat(101), type: 'text' })).toThrow(invalid({ name: expect.any(String) }));
    expect(() => parseContract(CreateFieldRequest, { name: 42, type: 'text' })).toThrow(invalid({ name: expect.any(String) }));
    expect(() => parseContract(CreateFieldRequest, { name: 'A', type: 'colour' })).toThrow(invalid({ type: expect.any(String) }));
    for (const position of [1.5, -1, '3', 1_000_001]) {
      expect(() => parseContract(CreateFieldRequest, { name: 'A', type: 'text', position })).toThrow(
        invalid({ position: expect.any(String) }),
      );
    }
    expect(parseContract(CreateFieldRequest, { name: 'A', type: 'text', position: null })).toMatchObject({ position: null });
    for (const choices of ['a', [1], [''], ['  '], ['x'.repeat(201)], Array.from({ length: 501 }, (_, i) => `c${i}`)]) {
      expect(() => parseContract(CreateFieldRequest, { name: 'A', type: 'select_box', choices })).toThrow(
        invalid({ choices: expect.any(String) }),
      );
    }
  });

  it('PUT: name required unless partial=true (query booleans in any case, 1/0)', () => {
    expect(() => parseContract(UpdateDealFieldRequest, { deal_field_id: 'x' })).toThrow(invalid({ name: expect.any(String) }));
    for (const partial of ['true', 'TRUE', '1', true]) {
      expect(parseContract(UpdateDealFieldRequest, { deal_field_id: 'x', partial, position: 3 })).toMatchObject({
        partial: true,
        position: 3,
      });
    }
    expect(() => parseContract(UpdateDealFieldRequest, { deal_field_id: 'x', partial: 'false' })).toThrow(
      invalid({ name: expect.any(String) }),
    );
    expect(() => parseContract(UpdateDealFieldRequest, { deal_field_id: 'x', name: 'A', partial: 'maybe' })).toThrow(
      invalid({ partial: expect.any(String) }),
    );
    expect(() => parseContract(UpdateDealFieldRequest, { deal_field_id: 'x', partial: 'true', name: '' })).toThrow(
      invalid({ name: expect.any(String) }),
    );
  });

  it('PATCH: everything optional, but a sent null name or type is refused', () => {
    expect({ ...parseContract(PatchCustomFieldRequest, { custom_field_id: 'x' }) }).toEqual({ custom_field_id: 'x' });
    expect(() => parseContract(PatchCustomFieldRequest, { custom_field_id: 'x', name: null })).toThrow(
      invalid({ name: expect.any(String) }),
    );
    expect(() => parseContract(PatchCustomFieldRequest, { custom_field_id: 'x', type: null })).toThrow(
      invalid({ type: expect.any(String) }),
    );
    expect(parseContract(PatchCustomFieldRequest, { custom_field_id: 'x', choices: null })).toMatchObject({ choices: null });
  });
});

describe('field routes', () => {
  it('declares six routes per set, all part of API_ROUTES, each with its own subject', () => {
    expect(FIELD_ROUTES).toHaveLength(18);
    for (const route of FIELD_ROUTES) expect(API_ROUTES).toContain(route);
    expect(new Set(FIELD_ROUTES.map((r) => r.subject)).size).toBe(18);
    expect(new Set(FIELD_ROUTES.map((r) => r.operationId)).size).toBe(18);
    for (const set of FIELD_SETS) {
      const info = FIELD_SET_INFO[set];
      const mine = FIELD_ROUTES.filter((r) => r.path.startsWith(`/${set}`)).map(
        (r) => `${r.method} ${r.path} ${r.successStatus} ${r.access}`,
      );
      expect(mine.sort()).toEqual(
        [
          `DELETE /${set}/{${info.idParam}} 200 write`,
          `GET /${set} 200 read`,
          `GET /${set}/{${info.idParam}} 200 read`,
          `PATCH /${set}/{${info.idParam}} 200 write`,
          `POST /${set} 201 write`,
          `PUT /${set}/{${info.idParam}} 200 write`,
        ].sort(),
      );
    }
    expect(Object.values(Subjects)).toEqual(
      expect.arrayContaining(['crm.custom-fields.list.v1', 'crm.company-fields.create.v1', 'crm.deal-fields.delete.v1']),
    );
  });
});
