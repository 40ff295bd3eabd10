import { ErrorName, type CompanyFieldsInput } from '@crm/contracts';
import { duplicatedName, emptyAddress, planCompanyWrite, sameCompany, type CompanyState } from './company.rules';

const STATUS = 'cccccccccccccccccccccccc';

const current: CompanyState = {
  name: 'Engines',
  description: 'Analytical',
  phone: '+44 20',
  url: 'https://engines.example',
  photo_url: 'https://engines.example/p.png',
  image: 'data:image/png;base64,AA==',
  address: { address: '1 St', city: 'London', state: '', zip_code: 'N1', country_code: 'GB' },
  company_fields: { f1: 'x' },
  syncing_status: true,
  synced_status_id: STATUS,
  syncing_tags: true,
  synced_tags: ['VIP'],
};

const plan = (input: CompanyFieldsInput, replace: boolean) => planCompanyWrite(input, current, replace);

describe('company writes (decisions.md "Companies")', () => {
  it('PUT needs name; a null name is refused everywhere', () => {
    expect(() => plan({ description: 'x' }, true)).toThrow(expect.objectContaining({ errors: { name: 'name is required' } }));
    expect(() => plan({ name: null }, true)).toThrow(expect.objectContaining({ errorName: ErrorName.InvalidRequestData }));
    expect(() => plan({ name: null }, false)).toThrow(expect.objectContaining({ errors: { name: 'name cannot be cleared' } }));
  });

  it('PUT clears every absent field: syncing off, no synced status, tags or company fields', () => {
    const p = plan({ name: 'Engines' }, true);
    expect(p.state).toEqual({
      name: 'Engines',
      description: '',
      phone: '',
      url: '',
      photo_url: '',
      image: '',
      address: emptyAddress(),
      company_fields: current.company_fields,
      syncing_status: false,
      synced_status_id: null,
      syncing_tags: false,
      synced_tags: current.synced_tags,
    });
    // Company fields and synced tags are replaced by what was sent (nothing): resolved by the service.
    expect(p).toMatchObject({ companyFields: [], syncedTags: [], statusToCheck: null });
  });

  it('PATCH and PUT partial=true keep what is absent; a sent null clears', () => {
    const p = plan({ phone: '+1', description: null }, false);
    expect(p.state).toEqual({ ...current, phone: '+1', description: '' });
    expect(p).toMatchObject({ companyFields: null, syncedTags: null, statusToCheck: null });
  });

  it('an address sent fills every key, missing ones ""', () => {
    expect(plan({ address: { city: 'Cork' } }, false).state.address).toEqual({ ...emptyAddress(), city: 'Cork' });
  });

  it('checks a synced status only when it changes, lower-cased', () => {
    expect(plan({ synced_status_id: STATUS.toUpperCase() }, false).statusToCheck).toBeNull();
    const p = plan({ synced_status_id: 'F'.repeat(24) }, false);
    expect(p.state.synced_status_id).toBe('f'.repeat(24));
    expect(p.statusToCheck).toBe('f'.repeat(24));
  });

  it('sends company fields and synced tags on for resolving when given', () => {
    const p = plan({ synced_tags: ['Lead'], company_fields: [] }, false);
    expect(p).toMatchObject({ syncedTags: ['Lead'], companyFields: [] });
  });

  it('an unchanged write is the same state', () => {
    expect(sameCompany(current, { ...current, address: { ...current.address } })).toBe(true);
    expect(sameCompany(current, { ...current, synced_tags: ['VIP', 'Lead'] })).toBe(false);
  });

  it("a rename onto another company's name is duplicated_entity naming `name`", () => {
    expect(duplicatedName()).toMatchObject({ errorName: ErrorName.DuplicatedEntity, errors: { name: expect.any(String) } });
  });
});
