import { FileUrlSigner, StoredUploadSigner, UploadPolicySigner } from './signed-urls';

const SECRET = 'a-test-secret-of-enough-length';

describe('FileUrlSigner', () => {
  const signer = new FileUrlSigner(SECRET, 'https://api.example.com', 3600);

  const parts = (url: string) => {
    const parsed = new URL(url);
    return { path: parsed.pathname, expires: parsed.searchParams.get('expires')!, signature: parsed.searchParams.get('signature')! };
  };

  it('signs a key until at least the TTL from now, and verifies it', () => {
    const now = 1_700_000_000;
    const link = signer.link('c1/17/report q1.pdf', now);
    expect(link.expiresAt).toBeGreaterThanOrEqual(now + 3600);
    expect(link.expiresAt).toBeLessThanOrEqual(now + 3600 + 900);
    const { path, expires, signature } = parts(link.url);
    expect(path).toBe('/files/c1/17/report%20q1.pdf');
    expect(Number(expires)).toBe(link.expiresAt);
    expect(signer.verify('c1/17/report q1.pdf', expires, signature, now)).toBe('ok');
  });

  it('renders the same URL within a quarter of the TTL', () => {
    expect(signer.link('k/1/a.png', 1_700_000_000).url).toBe(signer.link('k/1/a.png', 1_700_000_010).url);
  });

  it('refuses an expired link, another key, another expiry, another secret', () => {
    const now = 1_700_000_000;
    const { expires, signature } = parts(signer.link('k/1/a.png', now).url);
    expect(signer.verify('k/1/a.png', expires, signature, Number(expires) + 1)).toBe('expired');
    expect(signer.verify('k/1/b.png', expires, signature, now)).toBe('invalid');
    expect(signer.verify('k/1/a.png', String(Number(expires) + 1), signature, now)).toBe('invalid');
    expect(signer.verify('k/1/a.png', '0', signature, now)).toBe('invalid');
    expect(new FileUrlSigner('another-secret-of-enough-length', 'https://x', 3600).verify('k/1/a.png', expires, signature, now)).toBe(
      'invalid',
    );
    expect(signer.verify('k/1/a.png', 'soon', signature, now)).toBe('invalid');
  });

  it('signs permanent links (expires=0) that never expire', () => {
    const { expires, signature } = parts(signer.permanentLink('c/1/photo.png'));
    expect(expires).toBe('0');
    expect(signer.verify('c/1/photo.png', expires, signature, 9_999_999_999)).toBe('ok');
  });
});

describe('UploadPolicySigner', () => {
  const signer = new UploadPolicySigner(SECRET);
  const later = new Date(Date.now() + 3600_000).toISOString();
  const key = 'abc/nonce0000000000000000/a.png';

  it('round-trips a policy in S3 form: one exact key, 1 to maxBytes bytes', () => {
    const { policy, signature } = signer.encode({ expiration: later, key, maxBytes: 1000 });
    const document = JSON.parse(Buffer.from(policy, 'base64').toString('utf8'));
    expect(document.conditions).toContainEqual({ key });
    expect(document.conditions).toContainEqual(['content-length-range', 1, 1000]);
    expect(JSON.stringify(document)).not.toContain('starts-with');
    expect(signer.decode(policy, signature)).toEqual({ ok: true, policy: { expiration: later, key, maxBytes: 1000 } });
  });

  it('refuses a tampered policy, a wrong signature and an expired form', () => {
    const { policy, signature } = signer.encode({ expiration: later, key, maxBytes: 1000 });
    const widened = Buffer.from(Buffer.from(policy, 'base64').toString('utf8').replace('a.png', 'b.png')).toString('base64');
    expect(signer.decode(widened, signature)).toMatchObject({ ok: false, reason: 'the form signature is invalid' });
    // The first character carries six whole bits of the MAC (the last one only some): changing it always changes the MAC.
    expect(signer.decode(policy, `${signature.startsWith('A') ? 'B' : 'A'}${signature.slice(1)}`)).toMatchObject({ ok: false });
    expect(signer.decode(policy, '')).toMatchObject({ ok: false });
    const past = signer.encode({ expiration: new Date(Date.now() - 1000).toISOString(), key, maxBytes: 1000 });
    expect(signer.decode(past.policy, past.signature)).toMatchObject({ ok: false, reason: 'the upload form has expired' });
  });
});

describe('StoredUploadSigner', () => {
  const signer = new StoredUploadSigner(SECRET);
  const account = 'a'.repeat(24);
  const owner = 'c'.repeat(24);

  it('binds a key to its purpose, account, owner, nonce and name', () => {
    const key = signer.key('image', account, owner, 'upload', 'n'.repeat(22));
    expect(key).toMatch(new RegExp(`^${owner}/n{22}\\.[A-Za-z0-9_-]{22}/upload$`));
    expect(signer.verify('image', account, owner, key)).toBe(true);
    expect(signer.verify('file', account, owner, key)).toBe(false);
    expect(signer.verify('image', 'b'.repeat(24), owner, key)).toBe(false);
    expect(signer.verify('image', account, 'd'.repeat(24), key.replace(owner, 'd'.repeat(24)))).toBe(false);
    expect(signer.verify('image', account, owner, key.replace('/upload', '/other'))).toBe(false);
    expect(signer.verify('image', account, owner, key.replace('nnnn', 'mmmm'))).toBe(false);
    expect(signer.verify('image', account, owner, `${owner}/${'n'.repeat(22)}/upload`)).toBe(false);
    expect(new StoredUploadSigner('another-secret-of-enough-length').verify('image', account, owner, key)).toBe(false);
  });
});
