import { createHash, createHmac, generateKeyPairSync, randomBytes } from 'node:crypto';
import { loadConfig } from '@crm/config';
import { AreCallerVerifyKeys, IsCallerSigningKey } from './caller-keys.validators';
import { consumerOfPublished, RPC_CONSUMERS } from './rpc-consumers';
import {
  deriveConsumerKey,
  generateCallerKeys,
  keyIdOf,
  MAX_VERIFY_KEYS,
  parseSigningKey,
  parseVerifyKeys,
  RpcSigner,
  RpcVerifier,
  verifyKeysVariableOf,
} from './rpc-signature';

const data = new TextEncoder().encode('{"pattern":"crm.users.get.v1","data":{},"id":"1"}');
/** Published subjects (namespace "crm") of each consumer. */
const CRM = 'crm.crm.users.get.v1';
const AUTH = 'crm.auth.credentials.resolve.v1';
const WEBHOOKS = 'crm.webhooks.list.v1';

class KeysConfig {
  @IsCallerSigningKey()
  CALLER_SIGNING_KEY = '';

  @AreCallerVerifyKeys()
  CALLER_VERIFY_KEYS = '';
}

describe('request signatures', () => {
  it('derives each consumer key as HMAC-SHA256(signing key, "crm-rpc-consumer-v2\\n" + service), from base64 or base64url', () => {
    const secret = randomBytes(32);
    for (const service of RPC_CONSUMERS) {
      const expected = createHmac('sha256', secret).update(`crm-rpc-consumer-v2\n${service}`).digest('base64url');
      expect(deriveConsumerKey(secret.toString('base64url'), service)).toBe(expected);
      expect(deriveConsumerKey(secret.toString('base64'), service)).toBe(expected);
    }
    const { signingKey, verifyKeys } = generateCallerKeys();
    expect(Object.keys(verifyKeys).sort()).toEqual([...RPC_CONSUMERS].sort());
    expect(new Set(Object.values(verifyKeys)).size).toBe(RPC_CONSUMERS.length);
    for (const service of RPC_CONSUMERS) expect(verifyKeys[service]).toBe(deriveConsumerKey(signingKey, service));
    expect(verifyKeysVariableOf('webhook-dispatcher')).toBe('CALLER_VERIFY_KEYS_WEBHOOK_DISPATCHER');
  });

  it('keeps accepting a signing key saved as a raw Ed25519 private key (the same 32-byte shape)', () => {
    const { d } = generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' });
    expect(parseSigningKey(d!)).toEqual(Buffer.from(d!, 'base64url'));
    const signer = new RpcSigner(d!);
    const verifier = new RpcVerifier(deriveConsumerKey(d!, 'crm-core'));
    expect(verifier.check(CRM, data, signer.sign(CRM, data, 5000))).toBeUndefined();
  });

  it('names what is wrong with a key', () => {
    expect(() => parseSigningKey('c2hvcnQ=')).toThrow(/32 bytes/);
    expect(() => parseSigningKey('not base64!')).toThrow(/32 bytes/);
    const pem = generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    expect(() => parseSigningKey(pem)).toThrow(/PEM is an Ed25519 key of the former signatures[\s\S]*caller-keys\.mjs/);
    expect(() => parseVerifyKeys('')).toThrow(/no key/);
    expect(() => parseVerifyKeys(`${generateCallerKeys().verifyKeys['crm-core']},abc`)).toThrow(/key 2/);
    const many = Array.from({ length: MAX_VERIFY_KEYS + 1 }, () => generateCallerKeys().verifyKeys['crm-core']).join(',');
    expect(() => parseVerifyKeys(many)).toThrow(/at most/);
  });

  it("signs with the key of the subject's consumer, found after the namespace", () => {
    expect([CRM, AUTH, WEBHOOKS].map(consumerOfPublished)).toEqual(['crm-core', 'auth-server', 'webhook-dispatcher']);
    expect(() => consumerOfPublished('crm.test.whoami.v1')).toThrow(/no service answers test\.whoami\.v1/);
    const { signingKey, verifyKeys } = generateCallerKeys();
    const signer = new RpcSigner(signingKey);
    for (const [subject, service] of [
      [CRM, 'crm-core'],
      [AUTH, 'auth-server'],
      [WEBHOOKS, 'webhook-dispatcher'],
    ] as const) {
      const header = signer.sign(subject, data, 5000);
      expect(header).toMatch(/^v2\.[\w-]{12}\.\d+\.[\w-]{43}$/);
      expect(header.split('.')[1]).toBe(keyIdOf(Buffer.from(verifyKeys[service], 'base64url')));
      expect(new RpcVerifier(verifyKeys[service]).check(subject, data, header)).toBeUndefined();
    }
    expect(() => signer.sign('crm.test.whoami.v1', data, 5000)).toThrow(/no service answers/);
    // Tests of subjects of their own say which consumer answers them.
    const testSigner = new RpcSigner(signingKey, Date.now, () => 'crm-core');
    expect(
      new RpcVerifier(verifyKeys['crm-core']).check('crm.test.whoami.v1', data, testSigner.sign('crm.test.whoami.v1', data, 5000)),
    ).toBe(undefined);
  });

  it('accepts a fresh signature of the same subject and bytes once, with either of two keys', () => {
    const current = generateCallerKeys();
    const next = generateCallerKeys();
    const verifier = new RpcVerifier(`${current.verifyKeys['crm-core']},${next.verifyKeys['crm-core']}`);
    for (const keys of [current, next]) {
      const signature = new RpcSigner(keys.signingKey).sign(CRM, data, 5000);
      expect(verifier.check(CRM, data, signature)).toBeUndefined();
      expect(verifier.check(CRM, data, signature)).toBe('replayed');
    }
  });

  it('refuses other subjects, other bytes, other keys, missing signatures and another spelling of the MAC', () => {
    const keys = generateCallerKeys();
    const verifier = new RpcVerifier(keys.verifyKeys['crm-core']);
    const signature = new RpcSigner(keys.signingKey).sign(CRM, data, 5000);
    expect(verifier.check('crm.crm.users.list.v1', data, signature)).toBe('bad_signature');
    expect(verifier.check(CRM, new TextEncoder().encode('{}'), signature)).toBe('bad_signature');
    expect(verifier.check(CRM, data, undefined)).toBe('unsigned');
    expect(verifier.check(CRM, data, signature.replace(/^v2/, 'v1'))).toBe('malformed');
    const stranger = new RpcSigner(generateCallerKeys().signingKey).sign(CRM, data, 5000);
    expect(verifier.check(CRM, data, stranger)).toBe('unknown_key');
    // The expiry is signed: moving it forward breaks the signature.
    const [v, kid, expiry, mac] = signature.split('.') as [string, string, string, string];
    expect(verifier.check(CRM, data, [v, kid, Number(expiry) + 60_000, mac].join('.'))).toBe('bad_signature');
    // The last base64url character carries 2 unused bits: the same 32 bytes spelled otherwise are
    // refused, so a replay cannot pass as a new MAC.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const last = alphabet.indexOf(mac.at(-1)!);
    const respelled = `${mac.slice(0, -1)}${alphabet[last ^ 1]}`;
    expect(Buffer.from(respelled, 'base64url')).toEqual(Buffer.from(mac, 'base64url'));
    expect(verifier.check(CRM, data, [v, kid, expiry, respelled].join('.'))).toBe('bad_signature');
    expect(verifier.check(CRM, data, signature)).toBeUndefined();
  });

  it("refuses a request signed for another consumer, and a consumer's key cannot sign for another service", () => {
    const { signingKey, verifyKeys } = generateCallerKeys();
    const authServer = new RpcVerifier(verifyKeys['auth-server']);
    const crmCore = new RpcVerifier(verifyKeys['crm-core']);
    const signer = new RpcSigner(signingKey);
    // Re-targeted: a request signed for crm-core's subject, sent to the auth-server's.
    expect(authServer.check(AUTH, data, signer.sign(CRM, data, 5000))).toBe('unknown_key');
    // Signed for an auth subject but delivered to crm-core (its key is not crm-core's).
    expect(crmCore.check(AUTH, data, signer.sign(AUTH, data, 5000))).toBe('unknown_key');

    // A compromised crm-core holds K_crm-core only. With it: an HMAC under its own key id is not a
    // key the auth-server knows; under the auth-server's key id (public in every header) it is a bad
    // MAC; and K_crm-core used as a signing key derives keys of no consumer.
    const kCrm = Buffer.from(verifyKeys['crm-core'], 'base64url');
    const expiresAt = Date.now() + 10_000;
    const digest = createHash('sha256').update(data).digest('base64url');
    const macByCrmCore = createHmac('sha256', kCrm).update(`crm-rpc-signature-v2\n${AUTH}\n${expiresAt}\n${digest}`).digest('base64url');
    const authKeyId = keyIdOf(Buffer.from(verifyKeys['auth-server'], 'base64url'));
    expect(authServer.check(AUTH, data, `v2.${keyIdOf(kCrm)}.${expiresAt}.${macByCrmCore}`)).toBe('unknown_key');
    expect(authServer.check(AUTH, data, `v2.${authKeyId}.${expiresAt}.${macByCrmCore}`)).toBe('bad_signature');
    // The same MAC is what crm-core itself accepts: the construction is the one the signer uses.
    expect(crmCore.check(AUTH, data, `v2.${keyIdOf(kCrm)}.${expiresAt}.${macByCrmCore}`)).toBeUndefined();
    expect(authServer.check(AUTH, data, new RpcSigner(verifyKeys['crm-core']).sign(AUTH, data, 5000))).toBe('unknown_key');
    expect(crmCore.check(CRM, data, new RpcSigner(verifyKeys['crm-core']).sign(CRM, data, 5000))).toBe('unknown_key');
  });

  it('refuses a signature once it has expired, by the consumer clock, and one that claims to live too long', () => {
    const keys = generateCallerKeys();
    let now = 1_000_000;
    const verifier = new RpcVerifier(keys.verifyKeys['crm-core'], () => now);
    const signature = new RpcSigner(keys.signingKey, () => 1_000_000).sign(CRM, data, 1000);
    now = 1_000_000 + 1000 + 5000 + 1;
    expect(verifier.check(CRM, data, signature)).toBe('expired');
    now = 1_000_000;
    expect(verifier.check(CRM, data, signature)).toBeUndefined();
    const ahead = new RpcSigner(keys.signingKey, () => now + 10 * 60_000).sign(CRM, data, 1000);
    expect(verifier.check(CRM, data, ahead)).toBe('too_far_ahead');
  });

  it('checks CALLER_SIGNING_KEY and CALLER_VERIFY_KEYS when the configuration loads, and requires them to start', () => {
    const keys = generateCallerKeys();
    expect(loadConfig(KeysConfig, { CALLER_SIGNING_KEY: keys.signingKey, CALLER_VERIFY_KEYS: keys.verifyKeys['crm-core'] })).toBeInstanceOf(
      KeysConfig,
    );
    // `main.js migrate` loads the configuration too and sends no request: no key needed there.
    expect(loadConfig(KeysConfig, {})).toBeInstanceOf(KeysConfig);
    expect(() => loadConfig(KeysConfig, { CALLER_SIGNING_KEY: 'abc', CALLER_VERIFY_KEYS: 'abc' })).toThrow(
      /CALLER_SIGNING_KEY is not a valid signing key[\s\S]*CALLER_VERIFY_KEYS is not a list of verify keys \(key 1/,
    );
    // The messaging server and client are where a missing key stops the start.
    expect(() => new RpcSigner('')).toThrow(/CALLER_SIGNING_KEY is required/);
    expect(() => new RpcVerifier(' ')).toThrow(/CALLER_VERIFY_KEYS is required/);
  });
});
