import { FileUrlSigner, UploadPolicySigner } from './signed-urls';

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

  it('round-trips a policy in S3 form', () => {
    const { policy, signature } = signer.encode({ expiration: later, keyPrefix: 'abc/', maxBytes: 1000 });
    const document = JSON.parse(Buffer.from(policy, 'base64').toString('utf8'));
    expect(document.conditions).toContainEqual(['starts-with', '$key', 'abc/']);
    expect(document.conditions).toContainEqual(['content-length-range', 0, 1000]);
    expect(signer.decode(policy, signature)).toEqual({ ok: true, policy: { expiration: later, keyPrefix: 'abc/', maxBytes: 1000 } });
  });

  it('refuses a tampered policy, a wrong signature and an expired form', () => {
    const { policy, signature } = signer.encode({ expiration: later, keyPrefix: 'abc/', maxBytes: 1000 });
    const widened = Buffer.from(Buffer.from(policy, 'base64').toString('utf8').replace('abc/', '')).toString('base64');
    expect(signer.decode(widened, signature)).toMatchObject({ ok: false, reason: 'the form signature is invalid' });
    // The first character carries six whole bits of the MAC (the last one only some): changing it always changes the MAC.
    expect(signer.decode(policy, `${signature.startsWith('A') ? 'B' : 'A'}${signature.slice(1)}`)).toMatchObject({ ok: false });
    expect(signer.decode(policy, '')).toMatchObject({ ok: false });
    const past = signer.encode({ expiration: new Date(Date.now() - 1000).toISOString(), keyPrefix: 'abc/', maxBytes: 1000 });
    expect(signer.decode(past.policy, past.signature)).toMatchObject({ ok: false, reason: 'the upload form has expired' });
  });
});
