import { API_ROUTES } from '../routes';
import { IF_MATCH_OPERATIONS, ifMatchHolds, MAX_ENTITY_TAGS, noneMatchHolds, parseEntityTags, tagVersion } from './etag';

describe('entity tags', () => {
  const at = Date.parse('2026-11-26T13:52:30.123Z');
  const tag = `${at.toString(36)}.AbC-_12`;

  it('parses *, one tag, a list, and weak tags', () => {
    expect(parseEntityTags(' * ')).toBe('*');
    expect(parseEntityTags(`"${tag}"`)).toEqual([tag]);
    expect(parseEntityTags(`"a", W/"b" ,"c"`)).toEqual(['a', 'b', 'c']);
    expect(parseEntityTags('""')).toEqual(['']);
  });

  it('refuses what is not a list of quoted tags, and too many tags', () => {
    for (const bad of ['', 'abc', '"abc', 'abc"', '"a"b"', 'W/abc', '*, "a"', ',']) expect(parseEntityTags(bad)).toBeNull();
    const many = Array.from({ length: MAX_ENTITY_TAGS + 1 }, (_, i) => `"t${i}"`);
    expect(parseEntityTags(many.slice(0, MAX_ENTITY_TAGS).join(','))).toHaveLength(MAX_ENTITY_TAGS);
    expect(parseEntityTags(many.join(','))).toBeNull();
  });

  it('compares If-None-Match weakly, * matching anything', () => {
    expect(noneMatchHolds(['x', tag], `"${tag}"`)).toBe(true);
    expect(noneMatchHolds([tag], `W/"${tag}"`)).toBe(true);
    expect(noneMatchHolds(['x'], `"${tag}"`)).toBe(false);
    expect(noneMatchHolds('*', `"${tag}"`)).toBe(true);
  });

  it('reads the version (ms, base36) before the dot', () => {
    expect(tagVersion(tag)).toBe(at);
    expect(tagVersion(at.toString(36))).toBe(at);
    expect(tagVersion('0.abc')).toBe(0);
    expect(tagVersion('NOPE.abc')).toBeUndefined();
    expect(tagVersion('')).toBeUndefined();
  });

  it('holds If-Match when a tag carries the record version to the millisecond, or for *', () => {
    expect(ifMatchHolds([tag], new Date(at))).toBe(true);
    expect(ifMatchHolds(['other', tag], '2026-11-26T13:52:30.123456+00:00')).toBe(true);
    expect(ifMatchHolds([tag], new Date(at + 1))).toBe(false);
    expect(ifMatchHolds(['garbage'], new Date(at))).toBe(false);
    expect(ifMatchHolds('*', new Date(at))).toBe(true);
  });

  it('names only existing write operations as checking If-Match', () => {
    const writes = new Set(API_ROUTES.filter((route) => route.method !== 'GET').map((route) => route.operationId));
    for (const operationId of IF_MATCH_OPERATIONS)
      expect(writes.has(operationId) ? operationId : `${operationId} (no such write)`).toBe(operationId);
  });
});
