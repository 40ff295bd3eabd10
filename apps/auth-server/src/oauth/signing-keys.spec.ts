import { activeIndex, newSigningKey, planSigningKeys, RETIRE_AFTER_SECONDS, statusOf, type StoredSigningKey } from './oidc-keys.repository';

const DAY = 86400;
const policy = { rotationSeconds: 30 * DAY, publishAheadSeconds: 3600 };
const key = (kid: string, createdAt: number, activatesAt: number): StoredSigningKey => ({
  jwk: { kty: 'EC', kid },
  created_at: createdAt,
  activates_at: activatesAt,
});
const kids = (keys: StoredSigningKey[]) => keys.map((k) => k.jwk.kid);
let made = 0;
const create = (activatesAt: number) => key(`new${++made}`, activatesAt - 3600, activatesAt);

describe('signing key rotation policy', () => {
  beforeEach(() => (made = 0));

  it('creates the first key, active at once', () => {
    const plan = planSigningKeys([], 1000, policy, (at) => key('first', 1000, at));
    expect(plan).toEqual({ keys: [key('first', 1000, 1000)], changed: true });
  });

  it('keeps a young key as it is', () => {
    const keys = [key('a', 0, 0)];
    expect(planSigningKeys(keys, 29 * DAY, policy, create)).toEqual({ keys, changed: false });
  });

  it('publishes a successor ahead of use once the active key is older than the period', () => {
    const now = 30 * DAY;
    const plan = planSigningKeys([key('a', 0, 0)], now, policy, create);
    expect(plan.changed).toBe(true);
    expect(kids(plan.keys)).toEqual(['a', 'new1']);
    expect(plan.keys[1].activates_at).toBe(now + 3600);
    expect(activeIndex(plan.keys, now)).toBe(0);
    expect(statusOf(plan.keys, 1, now)).toBe('next');
    // Planning again does not stack successors.
    expect(planSigningKeys(plan.keys, now + 60, policy, create).changed).toBe(false);
  });

  it('switches to the successor at its time and keeps the old key published until its tokens expired', () => {
    const keys = [key('a', 0, 0), key('b', 30 * DAY, 30 * DAY + 3600)];
    const switched = 30 * DAY + 3600;
    expect(activeIndex(keys, switched)).toBe(1);
    expect(statusOf(keys, 0, switched)).toBe('retiring');
    expect(kids(planSigningKeys(keys, switched + RETIRE_AFTER_SECONDS - 1, policy, create).keys)).toEqual(['a', 'b']);
    const retired = planSigningKeys(keys, switched + RETIRE_AFTER_SECONDS, policy, create);
    expect(retired).toEqual({ keys: [keys[1]], changed: true });
  });

  it('signs with the first key when every activation lies ahead (clock stepped back)', () => {
    const keys = [key('b', 100 * DAY, 100 * DAY), key('c', 130 * DAY, 130 * DAY)];
    expect(activeIndex(keys, 0)).toBe(0);
    expect(kids(planSigningKeys(keys, 0, policy, create).keys)).toEqual(['b', 'c']);
    // A successor appended after a step back still waits for its own activation time.
    const withSuccessor = [...keys.slice(0, 1), key('d', 0, 3600)];
    expect(activeIndex(withSuccessor, 0)).toBe(0);
    expect(activeIndex(withSuccessor, 3600)).toBe(1);
  });

  it('makes real ES256 private keys with distinct kids', () => {
    const [a, b] = [newSigningKey(0), newSigningKey(0)];
    expect(a.jwk).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });
    expect(typeof a.jwk.d).toBe('string');
    expect(a.jwk.kid).not.toBe(b.jwk.kid);
  });
});
