import { BoundedCache } from './bounded-cache';

describe('BoundedCache', () => {
  it('drops the least recently used entry when full', () => {
    const cache = new BoundedCache<string, number>(2);
    cache.set('a', 1, Infinity);
    cache.set('b', 2, Infinity);
    expect(cache.get('a')).toBe(1); // a is now the most recent
    cache.set('c', 3, Infinity);
    expect(cache.get('b')).toBeUndefined();
    expect([cache.get('a'), cache.get('c'), cache.size]).toEqual([1, 3, 2]);
  });

  it('forgets an entry at its expiry', () => {
    const cache = new BoundedCache<string, number>(10);
    cache.set('a', 1, 1000);
    expect(cache.get('a', 999)).toBe(1);
    expect(cache.get('a', 1000)).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('keeps nothing with a size of 0', () => {
    const cache = new BoundedCache<string, number>(0);
    cache.set('a', 1, Infinity);
    expect(cache.get('a')).toBeUndefined();
  });
});
