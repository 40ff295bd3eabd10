import { chooseVariant, checkDistinctContacts, pairKey } from './contact-relationship.rules';

const A = 'a'.repeat(24);
const B = 'b'.repeat(24);

describe('contact relationship rules', () => {
  it('a symmetrical type takes its only variant, sent or not', () => {
    expect(chooseVariant([{ id: A, symmetrical: true }], undefined)).toEqual({ id: A });
    expect(chooseVariant([{ id: A, symmetrical: true }], A.toUpperCase())).toEqual({ id: A });
  });

  it('a directional type needs one of its variants', () => {
    const directional = [
      { id: A, symmetrical: false },
      { id: B, symmetrical: false },
    ];
    expect(() => chooseVariant(directional, null)).toThrow(expect.objectContaining({ errors: { variant_id: expect.any(String) } }));
    expect(chooseVariant(directional, B)).toEqual({ id: B });
    expect(chooseVariant(directional, 'c'.repeat(24))).toEqual({ unknown: 'c'.repeat(24) });
  });

  it('never relates a contact to itself, and keys a pair the same both ways', () => {
    expect(() => checkDistinctContacts(A, A)).toThrow(expect.objectContaining({ errors: { related_contact_id: expect.any(String) } }));
    expect(pairKey(A, B)).toBe(pairKey(B, A));
  });
});
