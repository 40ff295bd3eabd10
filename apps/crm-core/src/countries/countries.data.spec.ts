import { getCountries, getCountryCallingCode, type CountryCode } from 'libphonenumber-js';
import { COUNTRIES } from './countries.data';

/**
 * Codes Node's ICU names that are not officially assigned ISO 3166-1 alpha-2 codes: exceptionally
 * or transitionally reserved (AC, AN, BU, CP, CS, DG, DY, EA, EU, EZ, FX, HV, IC, NH, RH, SU, TA,
 * TP, UK, UN, VD, YD, YU, ZR), user-assigned (QO, XA, XB, XK, ZZ), and CQ.
 */
const NOT_ASSIGNED = new Set('AC AN BU CP CQ CS DD DG DY EA EU EZ FX HV IC NH QO RH SU TA TP UK UN VD XA XB XK YD YU ZR ZZ'.split(' '));

describe('COUNTRIES', () => {
  const codes = COUNTRIES.map(([code]) => code);

  it('holds every officially assigned ISO 3166-1 code once, by code', () => {
    expect(codes).toHaveLength(249);
    expect(new Set(codes).size).toBe(249);
    expect([...codes].sort()).toEqual(codes);
    const names = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });
    const letters = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
    const named: string[] = [];
    for (const a of letters)
      for (const b of letters) {
        const code = a + b;
        const name = names.of(code);
        if (name && name !== code && !NOT_ASSIGNED.has(code)) named.push(code);
      }
    expect(codes).toEqual(named);
    for (const [code, name] of COUNTRIES) expect([code, name]).toEqual([code, names.of(code)]);
  });

  it("gives each country with a numbering plan libphonenumber's calling code", () => {
    const planned = new Set<string>(getCountries());
    for (const [code, , prefix] of COUNTRIES) {
      expect(prefix).toMatch(/^\+\d{1,3}$/);
      if (planned.has(code)) expect([code, prefix]).toEqual([code, `+${getCountryCallingCode(code as CountryCode)}`]);
    }
    expect(COUNTRIES.filter(([code]) => !planned.has(code)).map(([code]) => code)).toEqual(['AQ', 'BV', 'GS', 'HM', 'PN', 'TF', 'UM']);
  });
});
