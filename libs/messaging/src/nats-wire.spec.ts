import type { RpcReply } from '@crm/contracts';
import { dataVersions, decodeReply, decodeReplyRaw, encodeReplyWithData, RawJsonData } from './nats-wire';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('replies whose data passes through unparsed', () => {
  const contact = { id: 'c1', modified_at: '2026-01-02T03:04:05.678Z', name: 'Zoë "quoted" ,"data": ✓' };
  const reply: RpcReply = {
    ok: true,
    http_status: 201,
    summary: { tags: { tags: [{ name: ',"data":{' }, { name: 'emoji 🎉 and \ud83d alone' }] } },
    data: { contact, next_action: { id: 'a1', modified_at: '2026-02-01T00:00:00.000Z' }, next_actions: [] },
  };

  it('is one JSON document a reader that knows nothing of the offset parses whole', () => {
    const { text, dataAt } = encodeReplyWithData(reply);
    expect(dataAt).toBeGreaterThan(0);
    expect(JSON.parse(text)).toMatchObject({ ok: true, http_status: 201, summary: reply.summary, data: (reply as { data: unknown }).data });
    // decodeReply: the reply as the handler made it (the versions are the wire's only).
    expect(decodeReply(bytes(text))).toEqual(reply);
  });

  it('gives the head parsed and the data as the exact text, with the versions of its records', () => {
    const { text, dataAt } = encodeReplyWithData(reply);
    const decoded = decodeReplyRaw(bytes(text), dataAt) as { ok: boolean; http_status: number; summary: unknown; data: RawJsonData };
    expect(decoded.ok).toBe(true);
    expect(decoded.http_status).toBe(201);
    expect(decoded.summary).toEqual(reply.summary);
    expect(decoded).not.toHaveProperty('data_versions');
    expect(decoded.data).toBeInstanceOf(RawJsonData);
    expect(decoded.data.json).toBe(JSON.stringify((reply as { data: unknown }).data));
    // The data's bytes as the reply carried them (the head before them holds multi-byte characters).
    expect(Buffer.from(decoded.data.bytes).equals(Buffer.from(JSON.stringify((reply as { data: unknown }).data)))).toBe(true);
    expect(decoded.data.versionOf('contact')).toBe(Date.parse(contact.modified_at));
    expect(decoded.data.versionOf('next_action')).toBe(Date.parse('2026-02-01T00:00:00.000Z'));
    // No such record: the data itself, which has no id: 0 (as a list's).
    expect(decoded.data.versionOf('list_contacts')).toBe(0);
    // Serialized again (the idempotency store), it is the data itself.
    expect(JSON.parse(JSON.stringify({ body: decoded.data }))).toEqual({ body: (reply as { data: unknown }).data });
  });

  it('parses whole what does not carry the data where the offset says', () => {
    const { text, dataAt } = encodeReplyWithData(reply);
    for (const at of [undefined, 0, 3, dataAt! + 1, dataAt! - 1, Number.NaN, bytes(text).length])
      expect(decodeReplyRaw(bytes(text), at)).toEqual(reply);
    // The offset counts bytes, not UTF-16 units: the text's own offset (not the same, with the
    // head's emoji) is refused, and the reply parsed whole.
    const utf16At = text.indexOf(',"data":{"contact"') + ',"data":'.length;
    expect(utf16At).not.toBe(dataAt);
    expect(decodeReplyRaw(bytes(text), utf16At)).toEqual(reply);
  });

  it('parses whole a reply whose offset points at a `,"data":` of the head (not where data starts)', () => {
    const nested: RpcReply = { ok: true, summary: { a: 1, data: 2 }, data: { contact } } as RpcReply;
    const { text, dataAt } = encodeReplyWithData(nested);
    const inHead = Buffer.from(text).indexOf(',"data":2') + ',"data":'.length;
    expect(inHead).toBeGreaterThan(0);
    expect(inHead).toBeLessThan(dataAt!);
    // The bytes before it are no JSON head: the reply is parsed whole, not answered with a 503.
    expect(decodeReplyRaw(bytes(text), inHead)).toEqual(nested);
    expect((decodeReplyRaw(bytes(text), dataAt) as { data: RawJsonData }).data.json).toBe(JSON.stringify({ contact }));
  });

  it('writes no offset for errors and for replies without data', () => {
    expect(encodeReplyWithData({ ok: false, error: { error_name: 'x', message: 'y', errors: {} } } as never).dataAt).toBeUndefined();
    expect(encodeReplyWithData({ ok: true } as RpcReply).dataAt).toBeUndefined();
  });

  it('versions: a flat record, a record under a key, and none', () => {
    expect(dataVersions({ id: 'l1', modified_at: '2026-01-01T00:00:00.000Z', text: 'x' })['']).toBe(Date.parse('2026-01-01T00:00:00.000Z'));
    expect(dataVersions({ status: { id: 's', modified_at: 'not a date' } })).toEqual({ '': 0, status: 0 });
    expect(dataVersions([1, 2])).toEqual({});
    expect(dataVersions(null)).toEqual({});
  });
});
