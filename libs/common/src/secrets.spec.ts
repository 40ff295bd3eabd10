import { generateApiKey, hashApiKey, hashPassword, openSealedValue, safeEqual, sealValue, verifyPassword } from './secrets';

describe('API keys', () => {
  it('are long random url-safe strings', () => {
    const a = generateApiKey();
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(generateApiKey()).not.toBe(a);
  });

  it('hash with the pepper: same key and pepper agree, another pepper differs', () => {
    expect(hashApiKey('pepper-1', 'k')).toBe(hashApiKey('pepper-1', 'k'));
    expect(hashApiKey('pepper-1', 'k')).not.toBe(hashApiKey('pepper-2', 'k'));
    expect(hashApiKey('pepper-1', 'k')).toMatch(/^[0-9a-f]{64}$/);
  });

  it('compare in constant time and reject different lengths', () => {
    expect(safeEqual('abc', 'abc')).toBe(true);
    expect(safeEqual('abc', 'abd')).toBe(false);
    expect(safeEqual('abc', 'abcd')).toBe(false);
  });
});

describe('passwords', () => {
  it('verify only the password that was hashed', async () => {
    const stored = await hashPassword('correct horse');
    expect(stored.startsWith('scrypt$')).toBe(true);
    await expect(verifyPassword('correct horse', stored)).resolves.toBe(true);
    await expect(verifyPassword('wrong horse', stored)).resolves.toBe(false);
    await expect(verifyPassword('x', 'garbage')).resolves.toBe(false);
  });
});

describe('sealValue / openSealedValue', () => {
  const key = 'a pepper of at least sixteen characters';

  it('opens what it sealed, for the same context only', () => {
    const sealed = sealValue(key, 'record:u1', '{"role":"user"}');
    expect(openSealedValue(key, 'record:u1', sealed)).toBe('{"role":"user"}');
    expect(openSealedValue(key, 'record:u2', sealed)).toBeNull();
    expect(openSealedValue('another key of sixteen characters', 'record:u1', sealed)).toBeNull();
  });

  it('refuses a changed payload, a bare payload and garbage', () => {
    const sealed = sealValue(key, 'c', '{"role":"user"}');
    expect(openSealedValue(key, 'c', sealed.replace('user', 'admin'))).toBeNull();
    expect(openSealedValue(key, 'c', '{"role":"admin"}')).toBeNull();
    expect(openSealedValue(key, 'c', '.')).toBeNull();
    expect(openSealedValue(key, 'c', '')).toBeNull();
  });
});
