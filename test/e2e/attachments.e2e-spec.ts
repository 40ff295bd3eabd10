import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { FileUrlSigner } from '@crm/storage';
import type { CreatedAccount } from '@crm/testing';
import sharp from 'sharp';
import { recordCalls, type Json } from './record-helpers';
import { setupE2e } from './setup';

const STORAGE_SECRET = 'attachments-e2e-storage-secret';
const MAX_BYTES = 300_000;
const storageDir = mkdtempSync(path.join(tmpdir(), 'attachments-e2e-'));

const ATTACHMENT_KEYS = [
  'custom_filename',
  'filename',
  'id',
  'pinned',
  'pinned_at',
  'size',
  'storage_provider',
  'thumbnail',
  'url',
  'url_expires_at',
];

/** Attachments with their bytes (issue 13 item 2; decisions.md "Attachments"), over HTTP, local driver. */
describe('attachments (e2e, local storage)', () => {
  const { services, admin, stranger } = setupE2e({
    stranger: { name: 'Stranger Ltd' },
    services: {
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
  let jpeg: Buffer;

  beforeAll(async () => {
    png = await sharp({ create: { width: 640, height: 480, channels: 3, background: '#3366cc' } })
      .png()
      .toBuffer();
    jpeg = await sharp({ create: { width: 300, height: 900, channels: 3, background: '#cc6633' } })
      .jpeg()
      .toBuffer();
  });

  afterAll(() => rmSync(storageDir, { recursive: true, force: true }));

  const auth = (who: CreatedAccount) => `Basic ${Buffer.from(`${who.user.id}:${who.user.api_key}`).toString('base64')}`;

  /** A multipart request to the API: `fields` first, then the file part. */
  const upload = async (
    who: CreatedAccount,
    method: string,
    pathname: string,
    fields: Record<string, string>,
    file?: { name: string; data: Buffer; part?: string },
  ) => {
    const form = new FormData();
    for (const [name, value] of Object.entries(fields)) form.append(name, value);
    if (file) form.append(file.part ?? 'file', new Blob([file.data]), file.name);
    const res = await fetch(`${services.gatewayUrl}/api/v3${pathname}`, { method, headers: { authorization: auth(who) }, body: form });
    const text = await res.text();
    return { status: res.status, body: text.startsWith('{') ? (JSON.parse(text) as Json) : text };
  };

  const download = async (url: string) => {
    const res = await fetch(url, { redirect: 'follow' });
    return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
  };

  const noteOf = async (who: CreatedAccount, body: Record<string, unknown> = {}) => {
    const person = await contact(who, body);
    const { note } = await ok(who, 'POST', '/notes', { contact_id: person.id, text: 'with files' }, 201);
    return { person, note };
  };

  /** The download of `url` answers 404 once the purge has run (it runs right after the delete; the loop covers the rest). */
  const gone = async (url: string) => {
    for (let attempt = 0; attempt < 100; attempt += 1) {
      if ((await download(url)).status === 404) return true;
      await new Promise((r) => setTimeout(r, 100));
    }
    return false;
  };

  it("uploads through the form of GET /attachments/s3_form, registers the key, and downloads the same bytes with OnePageCRM's shape", async () => {
    const { person, note } = await noteOf(admin);
    const form = await ok(admin, 'GET', `/attachments/s3_form?contact_id=${person.id}&filename=mario.png`);
    expect(form).toMatchObject({
      quota: expect.any(Number),
      display_quota: expect.stringMatching(/^\d+MB$/),
      url: `${services.gatewayUrl}/files`,
    });
    expect(Object.keys(form.fields).sort()).toEqual(
      [
        'acl',
        'key',
        'policy',
        'success_action_status',
        'x-amz-algorithm',
        'x-amz-credential',
        'x-amz-date',
        'x-amz-signature',
        'x-ignore-pattern',
      ].sort(),
    );
    // OnePageCRM's shape of the key, for clients that build it: here the whole key, chosen by the server.
    expect(form.fields['x-ignore-pattern']).toBe(form.fields.key);
    // The server chose the key (decisions.md "Upload forms"): the client sends every field unchanged.
    const key = form.fields.key as string;
    expect(key.startsWith(`${person.id}/`)).toBe(true);
    const body = new FormData();
    for (const [name, value] of Object.entries(form.fields as Record<string, string>)) body.append(name, value);
    body.append('file', new Blob([png]), 'mario.png');
    const posted = await fetch(form.url, { method: 'POST', body });
    expect(posted.status).toBe(201);

    const { attachment } = await ok(
      admin,
      'POST',
      '/attachments',
      { reference_type: 'note', reference_id: note.id, contact_id: person.id, key },
      201,
    );
    expect(Object.keys(attachment).sort()).toEqual(ATTACHMENT_KEYS);
    expect(attachment).toMatchObject({
      filename: 'mario.png',
      custom_filename: '',
      size: png.length,
      storage_provider: 'local',
      pinned: false,
      pinned_at: null,
    });
    expect(attachment.url_expires_at).toBeGreaterThan(Date.now() / 1000);
    const got = await download(attachment.url);
    expect(got.status).toBe(200);
    expect(got.bytes.equals(png)).toBe(true);
    expect(got.headers.get('content-disposition')).toMatch(/^attachment; filename="mario.png"/);
    expect(got.headers.get('x-content-type-options')).toBe('nosniff');
    expect(got.headers.get('content-type')).toBe('image/png');

    const thumb = await download(attachment.thumbnail.url);
    expect(thumb.status).toBe(200);
    const meta = await sharp(thumb.bytes).metadata();
    expect(meta.format).toBe('jpeg');
    expect(Math.max(meta.width!, meta.height!)).toBeLessThanOrEqual(200);

    // The note carries it; registering the same key twice is refused.
    expect((await ok(admin, 'GET', `/notes/${note.id}`)).note.attachments.map((a: Json) => a.id)).toEqual([attachment.id]);
    const again = await call(admin)('POST', '/attachments', { reference_type: 'note', reference_id: note.id, key });
    expect([again.status, again.body.error_name]).toEqual([409, 'conflict']);
  });

  it('takes a direct multipart upload on POST /{notes,calls,meetings,deals}/{id}/attachments and on POST /attachments', async () => {
    const { person, note } = await noteOf(admin);
    const onNote = await upload(admin, 'POST', `/notes/${note.id}/attachments`, {}, { name: 'portrait.jpg', data: jpeg });
    expect(onNote.status).toBe(201);
    const { attachment } = onNote.body.data;
    expect(attachment).toMatchObject({ filename: 'portrait.jpg', size: jpeg.length, thumbnail: { url: expect.any(String) } });
    expect((await download(attachment.url)).bytes.equals(jpeg)).toBe(true);
    const thumb = await sharp((await download(attachment.thumbnail.url)).bytes).metadata();
    expect([thumb.width, thumb.height]).toEqual([67, 200]);

    const { call: logged } = await ok(admin, 'POST', '/calls', { contact_id: person.id, text: 'called', call_result: 'interested' }, 201);
    const csv = Buffer.from('name,email\nAda,ada@example.com\n');
    const onCall = await upload(
      admin,
      'POST',
      '/attachments',
      { reference_type: 'call', reference_id: logged.id, name: '../../leads.csv' },
      { name: 'x.csv', data: csv },
    );
    expect(onCall.status).toBe(201);
    expect(onCall.body.data.attachment).toMatchObject({ filename: 'leads.csv', size: csv.length, thumbnail: null });
    expect((await download(onCall.body.data.attachment.url)).bytes.equals(csv)).toBe(true);
    expect((await ok(admin, 'GET', `/calls/${logged.id}`)).call.attachments).toHaveLength(1);

    const { deal } = await ok(admin, 'POST', '/deals', { contact_id: person.id, name: 'Big one', amount: 10 }, 201);
    const onDeal = await upload(
      admin,
      'POST',
      `/deals/${deal.id}/attachments`,
      {},
      { name: 'offer.pdf', data: Buffer.from('%PDF-1.7\n%%EOF\n') },
    );
    expect([onDeal.status, onDeal.body.data?.attachment.filename]).toEqual([201, 'offer.pdf']);
  });

  it('refuses a misspelt query parameter of an upload by name before storing any byte', async () => {
    const { note } = await noteOf(admin);
    const files = () => readdirSync(storageDir, { recursive: true }).length;
    const before = files();
    const res = await upload(admin, 'POST', `/notes/${note.id}/attachments?nmae=x`, {}, { name: 'a.png', data: png });
    expect([res.status, res.body.error_name, Object.keys(res.body.errors)]).toEqual([400, 'invalid_request_data', ['nmae']]);
    expect(files()).toBe(before);
    expect((await ok(admin, 'GET', `/notes/${note.id}`)).note.attachments).toEqual([]);
  });

  it('refuses an expired or forged download link', async () => {
    const { note } = await noteOf(admin);
    const { attachment } = (await upload(admin, 'POST', `/notes/${note.id}/attachments`, {}, { name: 'a.png', data: png })).body.data;
    const key = decodeURIComponent(new URL(attachment.url).pathname.slice('/files/'.length));
    const signer = new FileUrlSigner(STORAGE_SECRET, services.gatewayUrl, 60);
    const expired = signer.link(key, Math.floor(Date.now() / 1000) - 3600).url;
    const res = await download(expired);
    expect(res.status).toBe(403);
    expect(JSON.parse(res.bytes.toString()).error_message).toContain('expired');

    const forged = new URL(attachment.url);
    forged.searchParams.set('expires', String(Number(forged.searchParams.get('expires')) + 3600));
    expect((await download(forged.toString())).status).toBe(403);
    const otherKey = new URL(attachment.url);
    otherKey.pathname = otherKey.pathname.replace('a.png', 'a.png.thumb.jpg');
    expect((await download(otherKey.toString())).status).toBe(403);
  });

  it('refuses files over the size limit with 413 request_too_large, through both routes, storing nothing', async () => {
    const { person, note } = await noteOf(admin);
    const big = Buffer.concat([png, Buffer.alloc(MAX_BYTES, 1)]);
    const direct = await upload(admin, 'POST', `/notes/${note.id}/attachments`, {}, { name: 'big.png', data: big });
    expect([direct.status, direct.body.error_name]).toEqual([413, 'request_too_large']);

    const form = await ok(admin, 'GET', `/attachments/s3_form?contact_id=${person.id}&filename=big.png`);
    const body = new FormData();
    const key = form.fields.key as string;
    for (const [name, value] of Object.entries(form.fields as Record<string, string>)) body.append(name, value);
    body.append('file', new Blob([big]), 'big.png');
    const posted = await fetch(form.url, { method: 'POST', body });
    expect(posted.status).toBe(413);
    const registered = await call(admin)('POST', '/attachments', { reference_type: 'note', reference_id: note.id, key });
    expect([registered.status, registered.body.errors]).toEqual([400, { key: 'no uploaded file has this key' }]);
    expect((await ok(admin, 'GET', `/notes/${note.id}`)).note.attachments).toEqual([]);
  });

  it('refuses a .png that is HTML, types outside the allow-list, and a form key outside the contact', async () => {
    const { person, note } = await noteOf(admin);
    const html = Buffer.from('<!DOCTYPE html><html><script>alert(1)</script></html>');
    for (const [name, data] of [
      ['cat.png', html],
      ['page.html', html],
      ['run.exe', Buffer.from('MZ\x90\x00')],
    ] as const) {
      const res = await upload(admin, 'POST', `/notes/${note.id}/attachments`, {}, { name, data });
      expect([name, res.status, res.body.error_name]).toEqual([name, 415, 'unsupported_media_type']);
    }

    // Through the form: the gateway stores what the policy allows, crm-core checks the bytes on
    // registration (the form's file stays until the form expires, counted against the quota).
    const form = await ok(admin, 'GET', `/attachments/s3_form?contact_id=${person.id}&filename=cat.png`);
    const post = (key: string) => {
      const body = new FormData();
      for (const [name, value] of Object.entries(form.fields as Record<string, string>)) body.append(name, name === 'key' ? key : value);
      body.append('file', new Blob([html]), 'cat.png');
      return fetch(form.url, { method: 'POST', body });
    };
    const key = form.fields.key as string;
    expect((await post(key)).status).toBe(201);
    const registered = await call(admin)('POST', '/attachments', { reference_type: 'note', reference_id: note.id, key });
    expect([registered.status, registered.body.error_name]).toEqual([415, 'unsupported_media_type']);
    const again = await call(admin)('POST', '/attachments', { reference_type: 'note', reference_id: note.id, key });
    expect([again.status, again.body.error_name]).toEqual([415, 'unsupported_media_type']);

    const other = await contact(admin);
    expect((await post(`${other.id}/3/cat.png`)).status).toBe(403);
    const tampered = new FormData();
    for (const [name, value] of Object.entries(form.fields as Record<string, string>))
      tampered.append(name, name === 'x-amz-signature' ? 'AAAA' : name === 'key' ? `${person.id}/4/a.png` : value);
    tampered.append('file', new Blob([png]), 'a.png');
    expect((await fetch(form.url, { method: 'POST', body: tampered })).status).toBe(403);
  });

  it('renames, pins and unpins; lists pinned attachments of a contact and of its company; deletes', async () => {
    const { person, note } = await noteOf(admin, { company_name: `Pinco ${Date.now()}` });
    const first = (await upload(admin, 'POST', `/notes/${note.id}/attachments`, {}, { name: 'one.png', data: png })).body.data.attachment;
    const second = (await upload(admin, 'POST', `/notes/${note.id}/attachments`, {}, { name: 'two.pdf', data: Buffer.from('%PDF-1.4\n') }))
      .body.data.attachment;

    const renamed = await ok(admin, 'PATCH', `/attachments/${first.id}`, { attachment: { custom_filename: 'Team photo.png' } });
    expect(renamed).toMatchObject({ id: first.id, custom_filename: 'Team photo.png', filename: 'one.png' });
    const empty = await call(admin)('PATCH', `/attachments/${first.id}`, { attachment: { custom_filename: '' } });
    expect(empty.status).toBe(400);

    const pinned = await ok(admin, 'PATCH', `/attachments/${first.id}/pin`);
    expect(pinned).toMatchObject({ id: first.id, pinned: true, pinned_at: expect.any(Number) });
    await ok(admin, 'PATCH', `/attachments/${second.id}/pin`);
    const listed = await ok(admin, 'GET', `/contacts/${person.id}/pinned_attachments?per_page=1`);
    expect(listed).toMatchObject({ total_count: 2, page: 1, per_page: 1, max_page: 2 });
    expect(listed.pinned_attachments).toHaveLength(1);
    const company = await ok(admin, 'GET', `/companies/${person.company_id}/pinned_attachments`);
    expect(company.pinned_attachments.map((a: Json) => a.id).sort()).toEqual([first.id, second.id].sort());

    expect(await ok(admin, 'PATCH', `/attachments/${second.id}/unpin`)).toMatchObject({ pinned: false, pinned_at: null });
    expect((await ok(admin, 'GET', `/contacts/${person.id}/pinned_attachments`)).pinned_attachments.map((a: Json) => a.id)).toEqual([
      first.id,
    ]);

    await ok(admin, 'DELETE', `/attachments/${first.id}`);
    expect(await gone(first.url)).toBe(true);
    expect((await ok(admin, 'GET', `/notes/${note.id}`)).note.attachments.map((a: Json) => a.id)).toEqual([second.id]);
    expect((await call(admin)('DELETE', `/attachments/${first.id}`)).status).toBe(404);

    // Deleting the note deletes its files (OnePageCRM: "Its attachments are removed with it").
    await ok(admin, 'DELETE', `/notes/${note.id}`);
    expect(await gone(second.url)).toBe(true);
    expect((await ok(admin, 'GET', `/contacts/${person.id}/pinned_attachments`)).total_count).toBe(0);
  });

  it("answers 404 for another account's attachments, records, contacts and companies, storing nothing for them", async () => {
    const { person, note } = await noteOf(admin, { company_name: `Private ${Date.now()}` });
    const mine = (await upload(admin, 'POST', `/notes/${note.id}/attachments`, {}, { name: 'mine.png', data: png })).body.data.attachment;
    for (const [method, pathname, body] of [
      ['PATCH', `/attachments/${mine.id}`, { attachment: { custom_filename: 'x.png' } }],
      ['PATCH', `/attachments/${mine.id}/pin`, undefined],
      ['PATCH', `/attachments/${mine.id}/unpin`, undefined],
      ['DELETE', `/attachments/${mine.id}`, undefined],
      ['GET', `/attachments/s3_form?contact_id=${person.id}`, undefined],
      ['GET', `/contacts/${person.id}/pinned_attachments`, undefined],
      ['GET', `/companies/${person.company_id}/pinned_attachments`, undefined],
      ['DELETE', `/contacts/${person.id}/contact_photo`, undefined],
      ['DELETE', `/companies/${person.company_id}/logo`, undefined],
    ] as const) {
      const res = await call(stranger)(method, pathname, body);
      expect([method, pathname, res.status, res.body.error_name]).toEqual([method, pathname, 404, 'resource_not_found']);
    }
    const theirs = await upload(stranger, 'POST', `/notes/${note.id}/attachments`, {}, { name: 'x.png', data: png });
    expect([theirs.status, theirs.body.error_name]).toEqual([404, 'resource_not_found']);
    const viaKey = await call(stranger)('POST', '/attachments', {
      reference_type: 'note',
      reference_id: note.id,
      key: `${person.id}/1/x.png`,
    });
    expect(viaKey.status).toBe(404);
    const photo = await call(stranger)('POST', `/contacts/${person.id}/contact_photo`, { image: png.toString('base64') });
    expect(photo.status).toBe(404);
    expect((await download(mine.url)).bytes.equals(png)).toBe(true);
  });

  it('sets, replaces and removes a contact photo and a company logo (200 x 200 squares, base64 or multipart)', async () => {
    const person = await contact(admin, { company_name: `Logo Co ${Date.now()}` });
    const created = await ok(
      admin,
      'POST',
      `/contacts/${person.id}/contact_photo`,
      { image: `data:image/png;base64,${png.toString('base64')}` },
      201,
    );
    const firstUrl = created.contact.photo_url;
    const photo = await download(firstUrl);
    expect(photo.status).toBe(200);
    expect(await sharp(photo.bytes).metadata()).toMatchObject({ format: 'png', width: 200, height: 200 });

    const replaced = await upload(admin, 'PUT', `/contacts/${person.id}/contact_photo`, {}, { name: 'me.jpg', data: jpeg, part: 'image' });
    expect(replaced.status).toBe(200);
    expect(replaced.body.data.contact.photo_url).not.toBe(firstUrl);
    expect(await gone(firstUrl)).toBe(true);

    const notImage = await call(admin)('PUT', `/contacts/${person.id}/contact_photo`, {
      image: Buffer.from('<html></html>').toString('base64'),
    });
    expect([notImage.status, notImage.body.error_name]).toEqual([415, 'unsupported_media_type']);

    const removed = await ok(admin, 'DELETE', `/contacts/${person.id}/contact_photo`);
    expect(removed.contact.photo_url).toBe('');
    expect(await gone(replaced.body.data.contact.photo_url)).toBe(true);

    const logo = await ok(admin, 'PATCH', `/companies/${person.company_id}/logo`, { image: jpeg.toString('base64') });
    expect(await sharp((await download(logo.company.photo_url)).bytes).metadata()).toMatchObject({ width: 200, height: 200 });
    expect((await ok(admin, 'DELETE', `/companies/${person.company_id}/logo`)).company.photo_url).toBe('');
    expect(await gone(logo.company.photo_url)).toBe(true);
  });
});
