import { formatPgLsn, parsePgLsn } from './read-consistency';

describe('WAL positions (pg_lsn text)', () => {
  it('compare as 64-bit numbers, not as text', () => {
    expect(parsePgLsn('0/16B3748')).toBe(0x16b3748n);
    expect(parsePgLsn('1/0')! > parsePgLsn('0/FFFFFFFF')!).toBe(true);
    expect(parsePgLsn('0/A0')! > parsePgLsn('0/9F')!).toBe(true);
    expect(parsePgLsn('FFFFFFFF/FFFFFFFF')).toBe(2n ** 64n - 1n);
  });

  it('print as PostgreSQL prints them, and round-trip', () => {
    expect(formatPgLsn(0x16b3748n)).toBe('0/16B3748');
    expect(formatPgLsn((5n << 32n) | 0xan)).toBe('5/A');
    for (const text of ['0/0', '16/B374D848', 'FFFFFFFF/FFFFFFFF']) expect(formatPgLsn(parsePgLsn(text)!)).toBe(text);
  });

  it('refuse anything else', () => {
    for (const bad of [undefined, null, 42, '', 'primary', '0/', '/1', '0/123456789', 'G/1', '0/1 ', '0x1/2'])
      expect(parsePgLsn(bad)).toBeUndefined();
  });
});
