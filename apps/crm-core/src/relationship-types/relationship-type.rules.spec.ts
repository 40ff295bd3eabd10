import { checkNewVariants, checkVariantRenames } from './relationship-type.rules';

const directional = {
  symmetrical: false,
  variants: [
    { id: 'a'.repeat(24), name: 'Boss' },
    { id: 'b'.repeat(24), name: 'Employee' },
  ],
};
const invalid = (key: string) => expect.objectContaining({ errorName: 'invalid_request_data', errors: { [key]: expect.any(String) } });

describe('relationship type rules', () => {
  it('a directional type needs two different labels, in any letter case', () => {
    expect(() => checkNewVariants([{ name: 'Peer' }, { name: 'PEER' }])).toThrow(invalid('variants'));
    expect(() => checkNewVariants([{ name: 'Boss' }, { name: 'Employee' }])).not.toThrow();
    expect(() => checkNewVariants([{ name: 'Friend' }])).not.toThrow();
  });

  it('renames the complete set by id and reports whether a label changes', () => {
    const [boss, employee] = directional.variants;
    expect(checkVariantRenames(directional, [{ ...employee, id: employee.id.toUpperCase() }, boss])).toEqual({
      variants: [employee, boss],
      changed: false,
    });
    expect(checkVariantRenames(directional, [{ ...boss, name: 'Manager' }, employee]).changed).toBe(true);
  });

  it('refuses repeated, unknown or missing variants and equal directional labels', () => {
    const [boss, employee] = directional.variants;
    expect(() => checkVariantRenames(directional, [boss, boss])).toThrow(invalid('variants'));
    expect(() => checkVariantRenames(directional, [boss, { id: 'c'.repeat(24), name: 'X' }])).toThrow(invalid('variants'));
    expect(() => checkVariantRenames(directional, [boss])).toThrow(invalid('variants'));
    expect(() => checkVariantRenames(directional, [boss, { ...employee, name: 'boss' }])).toThrow(invalid('variants'));
    expect(() => checkVariantRenames({ symmetrical: true, variants: [boss] }, [boss, employee])).toThrow(invalid('variants'));
  });
});
