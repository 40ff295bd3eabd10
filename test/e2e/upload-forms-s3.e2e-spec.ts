import { startS3Server, type TestS3Server } from '@crm/testing';
import sharp from 'sharp';
import { recordCalls, type Json } from './record-helpers';
import { setupE2e } from './setup';

let s3: TestS3Server | undefined;

/**
 * Upload forms with STORAGE_DRIVER=s3 (decisions.md "Upload forms"). The bucket, not the gateway,
 * takes the POST, and S3 would take the same form again until it expires: so a registered file is
 * copied to a key no form names, and a second POST of the form cannot reach it.
 */
describe('upload forms (e2e, S3 storage)', () => {
  const { services, admin } = setupE2e({
    services: async () => {
      s3 = await startS3Server();
      return { readyTimeoutSeconds: 180, env: { ...s3.env, STORAGE_PURGE_INTERVAL_MS: '200' } };
    },
  });
  const { call, ok, contact } = recordCalls(() => services);

  afterAll(async () => {
    await s3?.close();
  });

  const postForm = async (form: Json, data: Buffer) => {
    const body = new FormData();
    for (const [name, value] of Object.entries(form.fields as Record<string, string>)) body.append(name, value);
    body.append('file', new Blob([data]), 'upload.png');
    return (await fetch(form.url, { method: 'POST', body })).status;
  };

  it('signs the exact key the server chose, and a second POST of a used form does not replace the registered file', async () => {
    const png = await sharp({ create: { width: 80, height: 80, channels: 3, background: '#00aa00' } })
      .png()
      .toBuffer();
    const person = await contact(admin);
    const { note } = await ok(admin, 'POST', '/notes', { contact_id: person.id, text: 'S3' }, 201);
    const form = await ok(admin, 'GET', `/attachments/s3_form?contact_id=${person.id}&filename=mario.png`);
    expect(form.fields.key).toMatch(new RegExp(`^${person.id}/[A-Za-z0-9_-]{22,}/mario\\.png$`));
    const policy = JSON.parse(Buffer.from(form.fields.policy, 'base64').toString('utf8'));
    expect(policy.conditions).toContainEqual({ key: form.fields.key });

    expect(await postForm(form, png)).toBe(201);
    const { attachment } = await ok(
      admin,
      'POST',
      '/attachments',
      { reference_type: 'note', reference_id: note.id, key: form.fields.key },
      201,
    );
    expect(attachment).toMatchObject({ filename: 'mario.png', size: png.length });

    const swapped = Buffer.concat([png, Buffer.alloc(4000, 5)]);
    expect(await postForm(form, swapped)).toBe(201); // s3rver takes it, as S3 would until the form expires
    const downloaded = await fetch(attachment.url);
    expect(downloaded.status).toBe(200);
    expect(Buffer.from(await downloaded.arrayBuffer()).equals(png)).toBe(true);
    // Registering the form's key again is refused: the form's file was registered once.
    const again = await call(admin)('POST', '/attachments', { reference_type: 'note', reference_id: note.id, key: form.fields.key });
    expect(again.status).toBeGreaterThanOrEqual(400);
    expect((await ok(admin, 'GET', `/notes/${note.id}`)).note.attachments).toHaveLength(1);

    // A photo request naming the registered file's key neither uses nor removes it.
    const key = decodeURIComponent(new URL(downloaded.url).pathname.split('/').slice(2).join('/'));
    const photo = await call(admin)('PUT', `/contacts/${person.id}/contact_photo`, { key });
    expect(photo.status).toBeGreaterThanOrEqual(400);
    expect((await fetch(attachment.url)).status).toBe(200);
  });
});
