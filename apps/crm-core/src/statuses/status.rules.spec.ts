import { DEFAULT_STATUS_COLOR } from '@crm/contracts';
import {
  assertSameKey,
  changedStatusValues,
  customStatusKey,
  newStatusValues,
  replacementChanges,
  statusValuesDiffer,
} from './status.rules';

const current = { text: 'Prospect', description: 'Qualified', color: '#F9A825' };
const LONG = 'A name made long ago, before the limit';

describe('status rules', () => {
  it('numbers custom type keys custom1, custom2, ...', () => {
    expect(customStatusKey(1)).toBe('custom1');
    expect(customStatusKey(12)).toBe('custom12');
  });

  it('a new status takes an empty description and the default color', () => {
    expect(newStatusValues({ text: 'Hot' })).toEqual({ text: 'Hot', description: '', color: DEFAULT_STATUS_COLOR });
    expect(newStatusValues({ text: 'Hot', description: 'd', color: '#000000' })).toEqual({
      text: 'Hot',
      description: 'd',
      color: '#000000',
    });
  });

  it("holds a new or changed name to OnePageCRM's 20 characters, keeping a longer stored one while unchanged", () => {
    expect(newStatusValues({ text: 'x'.repeat(20) }).text).toHaveLength(20);
    expect(() => newStatusValues({ text: 'x'.repeat(21) })).toThrow(expect.objectContaining({ errors: { text: expect.any(String) } }));
    const old = { ...current, text: LONG };
    expect(changedStatusValues(old, { text: LONG, color: '#111111' })).toEqual({ ...old, color: '#111111' });
    expect(() => changedStatusValues(old, { text: `${LONG}!` })).toThrow(expect.objectContaining({ errors: { text: expect.any(String) } }));
  });

  it('a partial change keeps what is not sent', () => {
    expect(changedStatusValues(current, { color: '#111111' })).toEqual({ ...current, color: '#111111' });
    expect(changedStatusValues(current, { text: 'Renamed' })).toEqual({ ...current, text: 'Renamed' });
  });

  it('a replacement resets description and color; the name stays when absent', () => {
    expect(changedStatusValues(current, replacementChanges({ text: 'Warm' }))).toEqual({
      text: 'Warm',
      description: '',
      color: DEFAULT_STATUS_COLOR,
    });
    expect(changedStatusValues(current, replacementChanges({}))).toMatchObject({ text: 'Prospect' });
  });

  it('a write may repeat the type key, never change it', () => {
    expect(() => assertSameKey('custom2', undefined)).not.toThrow();
    expect(() => assertSameKey('custom2', 'custom2')).not.toThrow();
    expect(() => assertSameKey('custom2', 'lead')).toThrow(
      expect.objectContaining({ errors: { status: expect.stringContaining('read-only') } }),
    );
  });

  it('tells a change from a no-op', () => {
    expect(statusValuesDiffer(current, { ...current })).toBe(false);
    expect(statusValuesDiffer(current, { ...current, description: '' })).toBe(true);
  });
});
