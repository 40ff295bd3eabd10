import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { CreatedAccount } from '@crm/testing';
import { Client } from 'pg';
import sharp from 'sharp';
import { recordCalls, type Json } from './record-helpers';
import { setupE2e } from './setup';

const STORAGE_SECRET = 'upload-forms-e2e-storage-secret';
const MAX_BYTES = 300_000;
const storageDir = mkdtempSync(path.join(tmpdir(), 'upload-forms-e2e-'));

/** Every directory under the storage directory that holds nothing. */
function emptyDirectories(): string[] {
  const empty: string[] = [];
  const walk = (dir: string) => {
    const entries = readdirSync(dir);
    if (entries.length === 0 && dir !== storageDir) empty.push(path.relative(storageDir, dir));
    for (const entry of entries) {
      const full = path.join(dir, entry);
      if (statSync(full).isDirectory()) walk(full);
    }
  };
  walk(storageDir);
  return empty;
}

/**
 * Upload forms, photos and logos against misuse (decisions.md "Upload forms"), local driver: a form
 * is good for one object under the key the server chose; an unregistered upload counts against the
 * quota and goes when the form expires; a registered file cannot be overwritten; a photo or logo
 * request never removes a file it names; a refused upload leaves nothing behind; file names are UTF-8.
 */
describe('upload forms (e2e, local storage)', () => {
  const { services, admin, stranger } = setupE2e({
    stranger: { name: 'Other Ltd' },
    services: {
      // The machine is shared: give the services time to start.
      readyTimeoutSeconds: 180,
      env: {
        STORAGE_DIR: storageDir,
        STORAGE_SECRET,
        ATTACHMENT_MAX_BYTES: String(MAX_BYTES),
        STORAGE_PURGE_INTERVAL_MS: '200',
      },
    },
  });
  const { call, ok, contact } = recordCalls(() => services);
  let png: Buffer;
  let db: Client;

  beforeAll(async () => {
    png = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#3366cc' } })
      .png()
      .toBuffer();
    db = new Client({ connectionString: services.database.url });
    // The database is dropped when the services stop: that ends this connection, which is no failure.
    db.on('error', () => undefined);
    await db.connect();
  });

  afterAll(async () => {
    await db?.end();
    rmSync(storageDir, { recursive: true, force: true });
  });

  const auth = (who: CreatedAccount) => `Basic ${Buffer.from(`${who.user.id}:${who.user.api_key}`).toString('base64')}`;

  const upload = async (who: CreatedAccount, method: string, pathname: string, file: { name: string; data: Buffer; part?: string }) => {
    const form = new FormData();
    form.append(file.part ?? 'file', new Blob([file.data]), file.name);
    const res = await fetch(`${services.gatewayUrl}/api/v3${pathname}`, { method, headers: { authorization: auth(who) }, body: form });
    const text = await res.text();
    return { status: res.status, body: text.startsWith('{') ? (JSON.parse(text) as Json) : text };
  };

  /** POSTs `data` with every field of the form (`key` replaced when given). */
  const postForm = async (form: Json, data: Buffer, key?: string) => {
    const body = new FormData();
    for (const [name, value] of Object.entries(form.fields as Record<string, string>))
      body.append(name, name === 'key' && key ? key : value);
    body.append('file', new Blob([data]), 'upload.png');
    const res = await fetch(form.url, { method: 'POST', body });
    return { status: res.status, text: await res.text() };
  };

  const download = async (url: string) => {
    const res = await fetch(url);
    return { status: res.status, bytes: Buffer.from(await res.arrayBuffer()) };
  };

  const noteOf = async (who: CreatedAccount, body: Record<string, unknown> = {}) => {
    const person = await contact(who, body);
    const { note } = await ok(who, 'POST', '/notes', { contact_id: person.id, text: 'with files' }, 201);
    return { person, note };
  };

  const keyOf = (url: string) => decodeURIComponent(new URL(url).pathname.slice('/files/'.length));
  const onDisk = (key: string) => {
    try {
      return statSync(path.join(storageDir, ...key.split('/'))).isFile();
    } catch {
      return false;
    }
  };

  it('gives each form its own key with a server nonce, takes one object of at most its size under that key, and refuses a second use', async () => {
    const { person } = await noteOf(admin);
    const form = await ok(admin, 'GET', `/attachments/s3_form?contact_id=${person.id}&filename=mario.png`);
    const other = await ok(admin, 'GET', `/attachments/s3_form?contact_id=${person.id}&filename=mario.png`);
    expect(form.fields.key).toMatch(new RegExp(`^${person.id}/[A-Za-z0-9_-]{22,}/mario\\.png$`));
    expect(other.fields.key).not.toBe(form.fields.key);

    // Another key than the form's is refused, and so is a file larger than the form says.
    const elsewhere = await postForm(form, png, `${person.id}/1/mario.png`);
    expect(elsewhere.status).toBe(403);
    expect(onDisk(`${person.id}/1/mario.png`)).toBe(false);
    const tooBig = await postForm(other, Buffer.concat([png, Buffer.alloc(MAX_BYTES, 1)]));
    expect(tooBig.status).toBe(413);

    expect((await postForm(form, png)).status).toBe(201);
    expect(onDisk(form.fields.key)).toBe(true);
    const again = await postForm(form, Buffer.concat([png, Buffer.from('other bytes')]));
    expect(again.status).toBe(403);
    expect(again.text).toContain('used');
    expect(statSync(path.join(storageDir, ...form.fields.key.split('/'))).size).toBe(png.length);
  });

  it('counts unregistered uploads against the quota, and removes them once their form has expired', async () => {
    const { person } = await noteOf(admin);
    const before = (await ok(admin, 'GET', `/attachments/s3_form?contact_id=${person.id}&filename=a.png`)).used as number;
    const form = await ok(admin, 'GET', `/attachments/s3_form?contact_id=${person.id}&filename=b.png`);
    expect(form.used).toBeGreaterThanOrEqual(before + png.length);
    expect((await postForm(form, png)).status).toBe(201);
    expect(onDisk(form.fields.key)).toBe(true);

    // The form's lifetime ends (moved back in the database rather than waiting an hour).
    await db.query(`UPDATE crm.upload_forms SET expires_at = now() - interval '1 hour' WHERE storage_key = $1`, [form.fields.key]);
    for (let attempt = 0; attempt < 100 && onDisk(form.fields.key); attempt += 1) await new Promise((r) => setTimeout(r, 100));
    expect(onDisk(form.fields.key)).toBe(false);
    expect((await db.query(`SELECT 1 FROM crm.upload_forms WHERE storage_key = $1`, [form.fields.key])).rowCount).toBe(0);
    const after = (await ok(admin, 'GET', `/attachments/s3_form?contact_id=${person.id}&filename=c.png`)).used as number;
    expect(after).toBeLessThan(form.used + MAX_BYTES);
  });

  it('never overwrites a registered file through a form', async () => {
    const { person, note } = await noteOf(admin);
    const form = await ok(admin, 'GET', `/attachments/s3_form?contact_id=${person.id}&filename=mario.png`);
    expect((await postForm(form, png)).status).toBe(201);
    const { attachment } = await ok(
      admin,
      'POST',
      '/attachments',
      { reference_type: 'note', reference_id: note.id, key: form.fields.key },
      201,
    );
    expect(attachment).toMatchObject({ filename: 'mario.png', size: png.length });

    const swapped = Buffer.concat([png, Buffer.alloc(5000, 9)]);
    expect((await postForm(form, swapped)).status).toBe(403);
    const got = await download(attachment.url);
    expect([got.status, got.bytes.equals(png)]).toEqual([200, true]);
    // A new form names a new key: it cannot reach the registered file either.
    const next = await ok(admin, 'GET', `/attachments/s3_form?contact_id=${person.id}&filename=mario.png`);
    expect((await postForm(next, swapped, keyOf(attachment.url))).status).toBe(403);
    expect((await download(attachment.url)).bytes.equals(png)).toBe(true);
  });

  it('never deletes a file that a photo or logo request names, even when it refuses the request', async () => {
    const { person, note } = await noteOf(admin, { company_name: `Keys Co ${Date.now()}` });
    // A PDF registered through a form: its key is under the contact's id, as a photo's is.
    const pdf = Buffer.from('%PDF-1.7\n%%EOF\n');
    const form = await ok(admin, 'GET', `/attachments/s3_form?contact_id=${person.id}`);
    const formKey = (form.fields.key as string) || `${person.id}/${Date.now()}/kept.pdf`;
    expect((await postForm(form, pdf, formKey)).status).toBe(201);
    const { attachment } = await ok(
      admin,
      'POST',
      '/attachments',
      { reference_type: 'note', reference_id: note.id, key: formKey, name: 'kept.pdf' },
      201,
    );
    const key = keyOf(attachment.url);
    expect(key.startsWith(`${person.id}/`)).toBe(true);
    for (const [method, pathname] of [
      ['PUT', `/contacts/${person.id}/contact_photo`],
      ['POST', `/contacts/${person.id}/contact_photo`],
      ['PATCH', `/companies/${person.company_id}/logo`],
    ] as const) {
      const res = await call(admin)(method, pathname, { key });
      expect([method, pathname, res.status >= 400 && res.status < 500]).toEqual([method, pathname, true]);
      expect([method, pathname, (await download(attachment.url)).status]).toEqual([method, pathname, 200]);
    }
    // Nor through a direct upload's key, or its thumbnail's.
    const direct = (await upload(admin, 'POST', `/notes/${note.id}/attachments`, { name: 'kept.png', data: png })).body.data.attachment;
    for (const named of [keyOf(direct.url), keyOf(direct.thumbnail.url)]) {
      const res = await call(admin)('PUT', `/contacts/${person.id}/contact_photo`, { key: named });
      expect(res.status).toBeGreaterThanOrEqual(400);
    }
    expect((await download(direct.thumbnail.url)).status).toBe(200);
    const listed = await ok(admin, 'GET', `/notes/${note.id}`);
    expect(listed.note.attachments.map((a: Json) => a.id).sort()).toEqual([attachment.id, direct.id].sort());
    expect((await download(attachment.url)).bytes.equals(pdf)).toBe(true);
    expect((await download(direct.url)).bytes.equals(png)).toBe(true);
  });

  it('leaves no file and no empty directory behind a refused upload, for its own records or another account’s', async () => {
    const theirs = await noteOf(stranger);
    const { note } = await noteOf(admin);
    const refused = [
      await upload(admin, 'POST', `/notes/${theirs.note.id}/attachments`, { name: 'x.png', data: png }),
      await upload(admin, 'POST', `/notes/${note.id}/attachments`, { name: 'cat.png', data: Buffer.from('<html></html>') }),
      await upload(admin, 'PUT', `/contacts/${theirs.person.id}/contact_photo`, { name: 'me.png', data: png, part: 'image' }),
      await upload(admin, 'POST', `/notes/${note.id}/attachments`, {
        name: 'big.png',
        data: Buffer.concat([png, Buffer.alloc(MAX_BYTES)]),
      }),
    ];
    expect(refused.map((r) => r.status)).toEqual([404, 415, 404, 413]);
    expect(readdirSync(storageDir)).not.toContain(theirs.note.id);
    expect(readdirSync(storageDir)).not.toContain(theirs.person.id);
    expect(emptyDirectories()).toEqual([]);
  });

  it('reads multipart file names as UTF-8 and strips control characters', async () => {
    const { note } = await noteOf(admin);
    const res = await upload(admin, 'POST', `/notes/${note.id}/attachments`, {
      // C1 controls and a bidi override as UTF-8 bytes (a raw C0 control makes the part header malformed: 400).
      name: 'Überblick\u0085 für\u009b Ærø\u202e.txt',
      data: Buffer.from('plain text\n'),
    });
    expect(res.status).toBe(201);
    expect(res.body.data.attachment.filename).toBe('Überblick für Ærø.txt');
  });
});
