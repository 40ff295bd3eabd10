import { boundedResult } from './mcp-result';

describe('boundedResult', () => {
  it('drops empty values and keeps the rest as is', () => {
    const { json, shortened } = boundedResult({ a: 1, b: null, c: '', d: [], e: {}, f: { g: 'x', h: null }, i: [0, false] });
    expect(json).toEqual({ a: 1, f: { g: 'x' }, i: [0, false] });
    expect(shortened).toBe(false);
  });

  it('cuts long texts and says how long they were', () => {
    const { text } = boundedResult({ note: 'y'.repeat(5_000) });
    expect(text.length).toBeLessThan(2_200);
    expect(text).toContain('(5000 characters)');
  });

  it('shortens arrays until the answer fits, and says how many were left out', () => {
    const items = Array.from({ length: 200 }, (_, i) => ({ id: i, text: 'z'.repeat(400) }));
    const { json, text, shortened } = boundedResult({ items }, 20_000);
    expect(shortened).toBe(true);
    expect(text.length).toBeLessThanOrEqual(20_000);
    const kept = (json as { items: unknown[] }).items;
    expect(kept[kept.length - 1]).toMatch(/^… \d+ more$/);
  });

  it('answers with advice when nothing fits', () => {
    const wide = Object.fromEntries(Array.from({ length: 5_000 }, (_, i) => [`k${i}`, 'v'.repeat(20)]));
    const { text, shortened } = boundedResult(wide, 1_000);
    expect(shortened).toBe(true);
    expect(text.length).toBeLessThanOrEqual(1_000);
    expect(text).toContain('per_page');
  });
});
