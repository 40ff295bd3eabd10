import { createHash, createHmac } from 'node:crypto';
import { S3StorageDriver } from './s3-storage.driver';

/**
 * The S3 driver's signatures and POST policies checked by an independent implementation of AWS's
 * documented algorithms (Signature Version 4: "Calculating a signature (POST)", "Authenticating
 * requests: using query parameters"; the POST policy's condition rules), written here with
 * node:crypto. The S3-compatible server of the integration tests (s3rver) checks neither V4
 * signatures nor policy conditions; AWS does, and this is what AWS computes and enforces.
 */
const ACCESS_KEY = 'AKIDEXAMPLE';
const SECRET = 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY';
const REGION = 'eu-west-1';
const BUCKET = 'crm-files';
const KEY = '65f000000000000000000001/q3c9mYbKk1r0m3yZ2oYv6A/Überblick 2024.pdf';

const driver = new S3StorageDriver({
  bucket: BUCKET,
  region: REGION,
  endpoint: 'https://s3.example.test',
  credentials: { accessKeyId: ACCESS_KEY, secretAccessKey: SECRET },
  forcePathStyle: true,
});

const hmac = (key: Buffer | string, text: string) => createHmac('sha256', key).update(text, 'utf8').digest();

/** AWS SigV4 signing key: HMAC chain over the date, region, service and `aws4_request`. */
function signingKey(date: string, region: string, service: string): Buffer {
  return hmac(hmac(hmac(hmac(`AWS4${SECRET}`, date), region), service), 'aws4_request');
}

/** RFC 3986 encoding as SigV4 wants it: every byte but A-Z a-z 0-9 - _ . ~ percent-encoded. */
function uriEncode(text: string, keepSlash: boolean): string {
  return Array.from(Buffer.from(text, 'utf8'))
    .map((byte) => {
      const ch = String.fromCharCode(byte);
      if (/[A-Za-z0-9\-_.~]/.test(ch) || (keepSlash && ch === '/')) return ch;
      return `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
    })
    .join('');
}

type Condition = Record<string, string> | [string, string | number, string | number];

/**
 * Whether S3 would take a POST of `fields` with a file of `size` bytes at `now`, by the policy's
 * rules: not expired; every condition holds (exact match, `eq`, `starts-with`,
 * `content-length-range`); every form field but policy, the signature, file and `x-ignore-*` is
 * named by a condition.
 */
function policyAccepts(fields: Record<string, string>, size: number, now: Date): boolean {
  const policy = JSON.parse(Buffer.from(fields.policy, 'base64').toString('utf8')) as { expiration: string; conditions: Condition[] };
  if (Date.parse(policy.expiration) <= now.getTime()) return false;
  const value = (name: string) => (name === 'bucket' ? BUCKET : fields[Object.keys(fields).find((f) => f.toLowerCase() === name)!]);
  const covered = new Set<string>(['bucket']);
  for (const condition of policy.conditions) {
    if (Array.isArray(condition)) {
      const [op, a, b] = condition;
      if (op === 'content-length-range') {
        if (size < Number(a) || size > Number(b)) return false;
        continue;
      }
      const name = String(a).replace(/^\$/, '').toLowerCase();
      covered.add(name);
      if (op === 'eq' && value(name) !== b) return false;
      if (op === 'starts-with' && !(value(name) ?? '').startsWith(String(b))) return false;
    } else {
      for (const [name, expected] of Object.entries(condition)) {
        covered.add(name.toLowerCase());
        if (value(name.toLowerCase()) !== expected) return false;
      }
    }
  }
  const uncovered = Object.keys(fields).filter(
    (name) => !['policy', 'x-amz-signature', 'file'].includes(name.toLowerCase()) && !name.toLowerCase().startsWith('x-ignore-'),
  );
  return uncovered.every((name) => covered.has(name.toLowerCase()));
}

describe('S3 driver signatures and policies, checked independently', () => {
  it("signs the form's policy as SigV4 specifies", async () => {
    const form = await driver.uploadForm(KEY, 10_000, 300);
    const [accessKey, date, region, service, terminal] = form.fields['x-amz-credential'].split('/');
    expect([accessKey, region, service, terminal]).toEqual([ACCESS_KEY, REGION, 's3', 'aws4_request']);
    expect(form.fields['x-amz-date'].startsWith(date)).toBe(true);
    expect(form.fields['x-amz-algorithm']).toBe('AWS4-HMAC-SHA256');
    const expected = createHmac('sha256', signingKey(date, region, service))
      .update(form.fields.policy)
      .digest('hex');
    expect(form.fields['x-amz-signature']).toBe(expected);
    // A policy changed by a client no longer matches its signature.
    const widened = Buffer.from(Buffer.from(form.fields.policy, 'base64').toString('utf8').replace('10000', '99999999')).toString('base64');
    expect(
      createHmac('sha256', signingKey(date, region, service))
        .update(widened)
        .digest('hex'),
    ).not.toBe(expected);
  });

  it('has a policy that takes the form as given, and refuses another key, a larger or empty file, and a late POST', async () => {
    const form = await driver.uploadForm(KEY, 10_000, 300);
    expect(form.url).toBe(`https://s3.example.test/${BUCKET}`);
    const now = new Date();
    expect(policyAccepts(form.fields, 10_000, now)).toBe(true);
    expect(policyAccepts(form.fields, 1, now)).toBe(true);
    expect(policyAccepts({ ...form.fields, key: `${KEY}.html` }, 100, now)).toBe(false);
    expect(policyAccepts({ ...form.fields, key: KEY.replace('q3c9', 'zzzz') }, 100, now)).toBe(false);
    expect(policyAccepts(form.fields, 10_001, now)).toBe(false);
    expect(policyAccepts(form.fields, 0, now)).toBe(false);
    expect(policyAccepts(form.fields, 100, new Date(now.getTime() + 301_000))).toBe(false);
    // A field the policy does not name (a client's own choice of ACL, say) is refused too.
    expect(policyAccepts({ ...form.fields, 'x-amz-meta-owner': 'me' }, 100, now)).toBe(false);
    expect(policyAccepts({ ...form.fields, acl: 'public-read' }, 100, now)).toBe(false);
  });

  it('presigns a GET whose query signature is the SigV4 one, binding the key, the expiry and the disposition', async () => {
    const url = new URL((await driver.directDownloadUrl(KEY, 'Überblick 2024.pdf', 60))!);
    const params = [...url.searchParams.entries()];
    const signature = url.searchParams.get('X-Amz-Signature');
    const [accessKey, date, region, service] = url.searchParams.get('X-Amz-Credential')!.split('/');
    expect([accessKey, region, service]).toEqual([ACCESS_KEY, REGION, 's3']);
    expect(url.searchParams.get('X-Amz-Expires')).toBe('60');
    expect(url.searchParams.get('response-content-disposition')).toContain('attachment');

    const query = params
      .filter(([name]) => name !== 'X-Amz-Signature')
      .map(([name, value]) => [uriEncode(name, false), uriEncode(value, false)])
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([name, value]) => `${name}=${value}`)
      .join('&');
    const signedHeaders = url.searchParams.get('X-Amz-SignedHeaders')!;
    expect(signedHeaders).toBe('host');
    const canonical = ['GET', uriEncode(`/${BUCKET}/${KEY}`, true), query, `host:${url.host}`, '', 'host', 'UNSIGNED-PAYLOAD'].join('\n');
    const toSign = [
      'AWS4-HMAC-SHA256',
      url.searchParams.get('X-Amz-Date'),
      `${date}/${region}/${service}/aws4_request`,
      createHash('sha256').update(canonical).digest('hex'),
    ].join('\n');
    expect(signature).toBe(
      createHmac('sha256', signingKey(date, region, service))
        .update(toSign)
        .digest('hex'),
    );
    expect(url.pathname).toBe(`/${BUCKET}/${uriEncode(KEY, true)}`);
  });
});
