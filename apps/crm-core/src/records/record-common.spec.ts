import { isoOf } from './record-common';

describe('isoOf', () => {
  it("writes PostgreSQL's JSON timestamps in UTC exactly as Date#toISOString() does", () => {
    for (const text of [
      '2026-11-27T05:03:12.123456+00:00',
      '2026-11-27T05:03:12.999999+00:00',
      '2026-11-27T05:03:12.5+00:00',
      '2026-11-27T05:03:12.12+00:00',
      '2026-11-27T05:03:12+00:00',
      '1999-12-31T23:59:59.000001+00:00',
    ]) {
      expect(isoOf(text)).toBe(new Date(text).toISOString());
    }
  });

  it('parses anything else (another offset, a Date, a space for the T)', () => {
    expect(isoOf('2026-11-27T06:03:12.5+01:00')).toBe('2026-11-27T05:03:12.500Z');
    expect(isoOf('2026-11-27 05:03:12.25+00')).toBe('2026-11-27T05:03:12.250Z');
    expect(isoOf(new Date(Date.UTC(2026, 10, 27, 5, 3, 12, 7)))).toBe('2026-11-27T05:03:12.007Z');
  });
});
