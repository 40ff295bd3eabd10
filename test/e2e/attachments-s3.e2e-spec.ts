import { startS3Server, type TestS3Server } from '@crm/testing';
import sharp from 'sharp';
import { recordCalls } from './record-helpers';
import { setupE2e } from './setup';

let s3: TestS3Server | undefined;

/** The same flows with STORAGE_DRIVER=s3, against a real S3-compatible server (s3rver) this file starts. */
describe('attachments (e2e, S3 storage)', () => {
  const { services, admin } = setupE2e({
    services: async () => {
      s3 = await startS3Server();
      return { readyTimeoutSeconds: 180, env: s3.env };
    },
  });
  const { ok, contact } = recordCalls(() => services);

  afterAll(async () => {
    await s3?.close();
  });

  it('uploads with the presigned POST form, registers the key, and downloads the bytes through a redirect to a presigned GET', async () => {
    const png = await sharp({ create: { width: 300, height: 300, channels: 3, background: '#00aa00' } })
      .png()
      .toBuffer();
    const person = await contact(admin);
    const { note } = await ok(admin, 'POST', '/notes', { contact_id: person.id, text: 'S3' }, 201);
    const form = await ok(admin, 'GET', `/attachments/s3_form?contact_id=${person.id}&filename=mario.png`);
    expect(form.url).toBe(`${s3!.endpoint}/${s3!.bucket}`);
    expect(form.fields).toMatchObject({ 'x-amz-algorithm': 'AWS4-HMAC-SHA256', policy: expect.any(String), key: expect.any(String) });

    const key = form.fields.key as string;
    const body = new FormData();
    for (const [name, value] of Object.entries(form.fields as Record<string, string>)) body.append(name, value);
    body.append('file', new Blob([png]), 'mario.png');
    expect((await fetch(form.url, { method: 'POST', body })).status).toBe(201);

    const { attachment } = await ok(admin, 'POST', '/attachments', { reference_type: 'note', reference_id: note.id, key }, 201);
    expect(attachment).toMatchObject({ storage_provider: 'amazon', size: png.length, thumbnail: { url: expect.any(String) } });
    const redirect = await fetch(attachment.url, { redirect: 'manual' });
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get('location')).toContain(`${s3!.endpoint}/${s3!.bucket}/${person.id}/`);
    const downloaded = await fetch(attachment.url);
    expect(Buffer.from(await downloaded.arrayBuffer()).equals(png)).toBe(true);
    const thumb = Buffer.from(await (await fetch(attachment.thumbnail.url)).arrayBuffer());
    expect((await sharp(thumb).metadata()).width).toBe(200);

    // A direct multipart upload lands in the bucket too; deleting removes the object.
    const multipart = new FormData();
    multipart.append('file', new Blob([Buffer.from('a,b\n1,2\n')]), 'numbers.csv');
    const res = await fetch(`${services.gatewayUrl}/api/v3/notes/${note.id}/attachments`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${admin.user.id}:${admin.user.api_key}`).toString('base64')}` },
      body: multipart,
    });
    expect(res.status).toBe(201);
    const csv = ((await res.json()) as { data: { attachment: { id: string; url: string } } }).data.attachment;
    expect(await (await fetch(csv.url)).text()).toBe('a,b\n1,2\n');
    await ok(admin, 'DELETE', `/attachments/${csv.id}`);
    expect((await fetch(csv.url)).status).toBe(404);
  });
});
