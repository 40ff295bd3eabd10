import { isId, newId } from './ids';

describe('newId', () => {
  it('returns 24 lowercase hex characters', () => {
    expect(newId()).toMatch(/^[0-9a-f]{24}$/);
  });

  it('embeds the creation second like a bson ObjectId', () => {
    const at = new Date('2026-01-02T03:04:05Z');
    expect(parseInt(newId(at).slice(0, 8), 16)).toBe(at.getTime() / 1000);
  });

  it('never repeats within a process', () => {
    const ids = new Set(Array.from({ length: 10_000 }, () => newId()));
    expect(ids.size).toBe(10_000);
  });

  it('recognises well-formed ids only', () => {
    expect(isId(newId())).toBe(true);
    expect(isId('ABCDEFABCDEFABCDEFABCDEF')).toBe(true);
    expect(isId('xyz')).toBe(false);
    expect(isId('0123456789abcdef0123456g')).toBe(false);
    expect(isId(42)).toBe(false);
  });
});
