import { createReadStream } from 'node:fs';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startS3Server, type TestS3Server } from '@crm/testing';
import { receiveFile, FileTooLargeError } from './incoming-file';
import { LocalStorageDriver } from './local-storage.driver';
import { S3StorageDriver } from './s3-storage.driver';
import { UploadPolicySigner } from './signed-urls';
import { StorageKeyTakenError, type StorageDriver } from './storage-driver';

const PNG = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.alloc(5000, 7)]);

async function text(stream: NodeJS.ReadableStream | null): Promise<Buffer> {
  if (!stream) throw new Error('no object');
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Both drivers pass the same contract; the S3 one against a real S3-compatible server (s3rver). */
describe.each(['local', 's3'] as const)('%s storage driver (integration)', (kind) => {
  let driver: StorageDriver;
  let s3: TestS3Server | undefined;
  let work: string;

  beforeAll(async () => {
    work = await mkdtemp(path.join(tmpdir(), 'storage-int-'));
    if (kind === 's3') {
      s3 = await startS3Server();
      driver = new S3StorageDriver({
        bucket: s3.bucket,
        region: 'us-east-1',
        endpoint: s3.endpoint,
        credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
        forcePathStyle: true,
      });
    } else {
      driver = new LocalStorageDriver(
        path.join(work, 'store'),
        'http://127.0.0.1:1',
        new UploadPolicySigner('a-test-secret-of-enough-length'),
      );
    }
  });

  afterAll(async () => {
    await s3?.close();
    await rm(work, { recursive: true, force: true });
  });

  const upload = async (key: string, data: Buffer) => {
    const source = path.join(work, `src-${Math.random()}`);
    await writeFile(source, data);
    const incoming = await receiveFile(createReadStream(source), 1 << 20, work);
    await driver.putFile(key, incoming.path, incoming.size, 'image/png');
    await incoming.discard();
    return incoming;
  };

  it('puts a file, reads its size, its start and its bytes, and deletes it', async () => {
    const key = 'c0ffee000000000000000001/1700000000000/mario.png';
    const incoming = await upload(key, PNG);
    expect(incoming.size).toBe(PNG.length);
    expect(incoming.head).toEqual(PNG.subarray(0, 4096));
    expect(await driver.stat(key)).toEqual({ size: PNG.length });
    expect(await driver.readStart(key, 8)).toEqual(PNG.subarray(0, 8));
    expect(await text(await driver.read(key))).toEqual(PNG);

    await driver.delete(key);
    expect(await driver.stat(key)).toBeNull();
    expect(await driver.read(key)).toBeNull();
    expect(await driver.readStart(key, 8)).toEqual(Buffer.alloc(0));
    await driver.delete(key); // a second delete is no error
  });

  it('never replaces a stored object: put, buffer and copy onto a key taken are refused', async () => {
    const key = 'c0ffee000000000000000004/AAAAAAAAAAAAAAAAAAAAAA/kept.png';
    await upload(key, PNG);
    const copy = 'c0ffee000000000000000004/BBBBBBBBBBBBBBBBBBBBBB/kept.png';
    if (kind === 'local') {
      await expect(upload(key, Buffer.from('other bytes'))).rejects.toBeInstanceOf(StorageKeyTakenError);
      await expect(driver.putBuffer(key, Buffer.from('other'), 'image/png')).rejects.toBeInstanceOf(StorageKeyTakenError);
      await driver.copy(key, copy);
      await expect(driver.copy(key, copy)).rejects.toBeInstanceOf(StorageKeyTakenError);
    } else {
      // S3 refuses a conditional write onto a key taken (412); s3rver ignores the condition, so
      // check that every write asks for it.
      const conditions: Array<string | undefined> = [];
      (driver as S3StorageDriver).client.middlewareStack.add(
        (next) => async (args) => {
          conditions.push((args.request as { headers: Record<string, string> }).headers['if-none-match']);
          return next(args);
        },
        { step: 'finalizeRequest', name: 'recordConditions' },
      );
      await driver.putBuffer('c0ffee000000000000000004/CCCCCCCCCCCCCCCCCCCCCC/x.png', Buffer.from('x'), 'image/png');
      await driver.copy(key, copy);
      (driver as S3StorageDriver).client.middlewareStack.remove('recordConditions');
      expect(conditions).toEqual(['*', '*']);
    }
    expect(await text(await driver.read(copy))).toEqual(PNG);
    await driver.delete(key);
    expect(await text(await driver.read(copy))).toEqual(PNG);
    expect(await driver.stat(key)).toBeNull();
  });

  it('stores generated buffers', async () => {
    await driver.putBuffer('c0ffee000000000000000001/1/thumb.jpg', Buffer.from('thumb'), 'image/jpeg');
    expect((await text(await driver.read('c0ffee000000000000000001/1/thumb.jpg'))).toString()).toBe('thumb');
  });

  it('stops an upload past the size limit and leaves no file behind', async () => {
    const source = path.join(work, 'big');
    await writeFile(source, Buffer.alloc(3000, 1));
    await expect(receiveFile(createReadStream(source), 2000, path.join(work, 'incoming'))).rejects.toBeInstanceOf(FileTooLargeError);
    expect(await readdir(path.join(work, 'incoming'))).toEqual([]);
  });

  if (kind === 's3') {
    it('presigns a GET that downloads the bytes as an attachment, for a bounded time', async () => {
      const key = 'c0ffee000000000000000002/1/report.png';
      await upload(key, PNG);
      const url = (await driver.directDownloadUrl(key, 'report.png', 60))!;
      expect(url).toContain('X-Amz-Signature=');
      const res = await fetch(url);
      expect(res.status).toBe(200);
      expect(Buffer.from(await res.arrayBuffer())).toEqual(PNG);
      expect(res.headers.get('content-disposition')).toContain('attachment');
      // s3rver does not check V4 query signatures (AWS does): check what the URL binds.
      const signed = new URL(url);
      expect(signed.pathname).toBe(`/${s3!.bucket}/${key}`);
      expect(signed.searchParams.get('X-Amz-Expires')).toBe('60');
    });

    it('signs a POST form for one exact key that the S3 server accepts, and its policy binds that key, the size and the expiry', async () => {
      const key = 'c0ffee000000000000000003/CCCCCCCCCCCCCCCCCCCCCC/mario.png';
      const form = await driver.uploadForm(key, 10_000, 300);
      expect(form.fields).toMatchObject({
        key,
        policy: expect.any(String),
        'x-amz-algorithm': 'AWS4-HMAC-SHA256',
        'x-amz-signature': expect.any(String),
      });
      const body = new FormData();
      for (const [name, value] of Object.entries(form.fields)) body.append(name, value);
      body.append('file', new Blob([PNG]), 'mario.png');
      const res = await fetch(form.url, { method: 'POST', body });
      expect(res.status).toBe(201);
      expect(await driver.stat(key)).toEqual({ size: PNG.length });
      expect(Buffer.from(await text(await driver.read(key))).equals(PNG)).toBe(true);
      // s3rver enforces neither the policy nor the signature (AWS does): s3-form-signatures.spec checks them independently.
      const policy = JSON.parse(Buffer.from(form.fields.policy, 'base64').toString('utf8'));
      expect(policy.conditions).toEqual(
        expect.arrayContaining([{ key }, ['content-length-range', 1, 10_000], { acl: 'private' }, { success_action_status: '201' }]),
      );
      expect(JSON.stringify(policy.conditions)).not.toContain('starts-with');
      expect(Date.parse(policy.expiration) - Date.now()).toBeLessThanOrEqual(300_000);
    });
  } else {
    it('has no direct download link (the gateway streams) and signs its own form policy', async () => {
      expect(await driver.directDownloadUrl('a/1/b.png', 'b.png', 60)).toBeNull();
      const key = 'c0ffee000000000000000003/CCCCCCCCCCCCCCCCCCCCCC/a.png';
      const form = await driver.uploadForm(key, 10_000, 300);
      expect(form.url).toBe('http://127.0.0.1:1/files');
      expect(form.fields.key).toBe(key);
      const decoded = new UploadPolicySigner('a-test-secret-of-enough-length').decode(form.fields.policy, form.fields['x-amz-signature']);
      expect(decoded).toMatchObject({ ok: true, policy: { key, maxBytes: 10_000 } });
    });

    it('removes the directories a delete or a refused write leaves empty, never the root', async () => {
      const root = path.join(work, 'store');
      await upload('c0ffee000000000000000005/DDDDDDDDDDDDDDDDDDDDDD/a.png', PNG);
      await upload('c0ffee000000000000000005/EEEEEEEEEEEEEEEEEEEEEE/b.png', PNG);
      await driver.delete('c0ffee000000000000000005/DDDDDDDDDDDDDDDDDDDDDD/a.png');
      expect(await readdir(path.join(root, 'c0ffee000000000000000005'))).toEqual(['EEEEEEEEEEEEEEEEEEEEEE']);
      await driver.delete('c0ffee000000000000000005/EEEEEEEEEEEEEEEEEEEEEE/b.png');
      expect(await readdir(root)).not.toContain('c0ffee000000000000000005');
      await expect(
        driver.copy('c0ffee000000000000000006/FFFFFFFFFFFFFFFFFFFFFF/none.png', 'c0ffee000000000000000007/x/y.png'),
      ).rejects.toThrow();
      expect(await readdir(root)).not.toContain('c0ffee000000000000000007');
      await driver.delete('c0ffee000000000000000005/EEEEEEEEEEEEEEEEEEEEEE/b.png');
      expect(await readdir(work)).toContain('store');
    });

    it('refuses keys that would leave its directory', async () => {
      await expect(driver.putBuffer('../escape', Buffer.from('x'), 'text/plain')).rejects.toThrow('invalid storage key');
      await expect(driver.stat('a/../../b')).resolves.toBeNull();
    });
  }
});
