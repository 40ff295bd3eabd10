import { generateKeyPairSync } from 'node:crypto';
import { loadConfig } from '@crm/config';
import { AreCallerVerifyKeys, IsCallerSigningKey } from './caller-keys.validators';
import { generateCallerKeyPair, keyIdOf, MAX_VERIFY_KEYS, parseSigningKey, parseVerifyKeys, RpcSigner, RpcVerifier } from './rpc-signature';

const data = new TextEncoder().encode('{"pattern":"crm.users.get.v1","data":{},"id":"1"}');

class KeysConfig {
  @IsCallerSigningKey()
  CALLER_SIGNING_KEY = '';

  @AreCallerVerifyKeys()
  CALLER_VERIFY_KEYS = '';
}

describe('request signatures', () => {
  it('reads keys as base64, base64url or PEM, and the pair matches', () => {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const pem = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    const publicPem = publicKey.export({ format: 'pem', type: 'spki' }).toString();
    const { d, x } = privateKey.export({ format: 'jwk' });
    const base64 = Buffer.from(d!, 'base64url').toString('base64');
    for (const text of [pem, pem.replace(/\n/g, '\\n'), d!, base64]) expect(keyIdOf(parseSigningKey(text))).toBe(keyIdOf(publicKey));
    expect(parseVerifyKeys(`${x}, ${publicPem}`).map(keyIdOf)).toEqual([keyIdOf(publicKey), keyIdOf(publicKey)]);
  });

  it('names what is wrong with a key', () => {
    expect(() => parseSigningKey('c2hvcnQ=')).toThrow(/32 bytes/);
    expect(() => parseSigningKey('not base64!')).toThrow(/32 bytes/);
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    expect(() => parseSigningKey(rsa)).toThrow(/Ed25519/);
    expect(() => parseVerifyKeys('')).toThrow(/no key/);
    expect(() => parseVerifyKeys(`${generateCallerKeyPair().verifyKey},abc`)).toThrow(/key 2/);
    const many = Array.from({ length: MAX_VERIFY_KEYS + 1 }, () => generateCallerKeyPair().verifyKey).join(',');
    expect(() => parseVerifyKeys(many)).toThrow(/at most/);
  });

  it('accepts a fresh signature of the same subject and bytes once, with either of two keys', () => {
    const current = generateCallerKeyPair();
    const next = generateCallerKeyPair();
    const verifier = new RpcVerifier(`${current.verifyKey},${next.verifyKey}`);
    for (const keys of [current, next]) {
      const signature = new RpcSigner(keys.signingKey).sign('crm.crm.users.get.v1', data, 5000);
      expect(verifier.check('crm.crm.users.get.v1', data, signature)).toBeUndefined();
      expect(verifier.check('crm.crm.users.get.v1', data, signature)).toBe('replayed');
    }
  });

  it('refuses other subjects, other bytes, other keys and missing signatures', () => {
    const keys = generateCallerKeyPair();
    const verifier = new RpcVerifier(keys.verifyKey);
    const signature = new RpcSigner(keys.signingKey).sign('crm.crm.users.get.v1', data, 5000);
    expect(verifier.check('crm.crm.users.list.v1', data, signature)).toBe('bad_signature');
    expect(verifier.check('crm.crm.users.get.v1', new TextEncoder().encode('{}'), signature)).toBe('bad_signature');
    expect(verifier.check('crm.crm.users.get.v1', data, undefined)).toBe('unsigned');
    const stranger = new RpcSigner(generateCallerKeyPair().signingKey).sign('crm.crm.users.get.v1', data, 5000);
    expect(verifier.check('crm.crm.users.get.v1', data, stranger)).toBe('unknown_key');
    // The expiry is signed: moving it forward breaks the signature.
    const [v, kid, expiry, sig] = signature.split('.');
    expect(verifier.check('crm.crm.users.get.v1', data, [v, kid, Number(expiry) + 60_000, sig].join('.'))).toBe('bad_signature');
  });

  it('refuses a signature once it has expired, by the consumer clock', () => {
    const keys = generateCallerKeyPair();
    let now = 1_000_000;
    const verifier = new RpcVerifier(keys.verifyKey, () => now);
    const signature = new RpcSigner(keys.signingKey, () => 1_000_000).sign('s', data, 1000);
    now = 1_000_000 + 1000 + 5000 + 1;
    expect(verifier.check('s', data, signature)).toBe('expired');
    now = 1_000_000;
    expect(verifier.check('s', data, signature)).toBeUndefined();
  });

  it('checks CALLER_SIGNING_KEY and CALLER_VERIFY_KEYS when the configuration loads, and requires them to start', () => {
    const keys = generateCallerKeyPair();
    expect(loadConfig(KeysConfig, { CALLER_SIGNING_KEY: keys.signingKey, CALLER_VERIFY_KEYS: keys.verifyKey })).toBeInstanceOf(KeysConfig);
    // `main.js migrate` loads the configuration too and sends no request: no key needed there.
    expect(loadConfig(KeysConfig, {})).toBeInstanceOf(KeysConfig);
    expect(() => loadConfig(KeysConfig, { CALLER_SIGNING_KEY: 'abc', CALLER_VERIFY_KEYS: 'abc' })).toThrow(
      /CALLER_SIGNING_KEY is not a valid Ed25519 private key[\s\S]*CALLER_VERIFY_KEYS is not a list of Ed25519 public keys \(key 1/,
    );
    // The messaging server and client are where a missing key stops the start.
    expect(() => new RpcSigner('')).toThrow(/CALLER_SIGNING_KEY is required/);
    expect(() => new RpcVerifier(' ')).toThrow(/CALLER_VERIFY_KEYS is required/);
  });
});
