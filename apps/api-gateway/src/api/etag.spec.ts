import type { ApiError } from '@crm/contracts';
import { acceptIfMatch, envelopeHead, envelopeJson, parseIfNoneMatch, recordKey, recordVersion, replyTag, versionedTag } from './etag';

const contact = (modifiedAt: string, name = 'Ann') => ({
  contact: { id: 'c1', first_name: name, modified_at: modifiedAt },
  next_actions: [],
});

describe('ETag of a reply', () => {
  const at = '2026-11-26T13:52:30.123Z';

  const entityTag = (data: unknown) => replyTag('GET', 'ContactReply', data)!;

  it('is "<version>.<hash>" with the record version in base36 ms', () => {
    const tag = entityTag(contact(at));
    expect(tag).toMatch(/^"[0-9a-z]+\.[A-Za-z0-9_-]{16}"$/);
    expect(parseInt(tag.slice(1, tag.indexOf('.')), 36)).toBe(Date.parse(at));
  });

  it('finds the record in the field the reply names, or flat; lists are version 0', () => {
    expect(recordKey('ContactReply')).toBe('contact');
    expect(recordKey('PredefinedActionGroupReply')).toBe('predefined_action_group');
    expect(recordVersion({ id: 'x', modified_at: at }, 'lead_source')).toBe(Date.parse(at));
    expect(recordVersion(contact(at), 'contact')).toBe(Date.parse(at));
    const nextAction = { id: 'a1', modified_at: '2020-01-01T00:00:00.000Z' };
    expect(recordVersion({ next_action: nextAction, contact: contact(at).contact }, 'contact')).toBe(Date.parse(at));
    expect(recordVersion({ next_action: nextAction }, 'contact')).toBe(0);
    expect(recordVersion({ contacts: [contact(at)], total_count: 1 }, 'list_contacts')).toBe(0);
    expect(recordVersion(null, 'contact')).toBe(0);
    expect(replyTag('GET', 'ListContactsReply', { contacts: [] })).toMatch(/^"0\./);
  });

  it('changes exactly when data changes', () => {
    expect(entityTag(contact(at))).toBe(entityTag(contact(at)));
    expect(entityTag(contact(at, 'Bob'))).not.toBe(entityTag(contact(at)));
    expect(entityTag(contact('2026-11-26T13:52:30.124Z'))).not.toBe(entityTag(contact(at)));
  });

  it('is given to every GET and to writes answering one record only', () => {
    expect(replyTag('GET', 'ListContactsReply', { contacts: [] })).toBeDefined();
    expect(replyTag('HEAD', 'EmptyReply', {})).toBeDefined();
    expect(replyTag('PUT', 'ContactReply', contact(at))).toBeDefined();
    expect(replyTag('POST', 'ContactReply', contact(at))).toBeDefined();
    expect(replyTag('DELETE', 'EmptyReply', {})).toBeUndefined();
    expect(replyTag('POST', 'ListContactsReply', { contacts: [] })).toBeUndefined();
  });
});

describe('conditional headers', () => {
  const errorOf = (fn: () => unknown) => {
    try {
      fn();
    } catch (error) {
      return error as ApiError;
    }
    return undefined;
  };

  it('forwards If-Match on writes that check it, trimmed', () => {
    expect(acceptIfMatch('updateContact', ' "abc.def" ')).toBe('"abc.def"');
    expect(acceptIfMatch('deleteDeal', '*')).toBe('*');
  });

  it('refuses If-Match on writes that do not check it, and a malformed one, with 400', () => {
    expect(errorOf(() => acceptIfMatch('createContact', '*'))).toMatchObject({ errorName: 'invalid_request_data', http: 400 });
    expect(errorOf(() => acceptIfMatch('updateContact', 'abc'))).toMatchObject({ errorName: 'invalid_request_data', http: 400 });
    expect(errorOf(() => parseIfNoneMatch('abc'))).toMatchObject({ errorName: 'invalid_request_data', http: 400 });
    expect(parseIfNoneMatch('"a", W/"b"')).toEqual(['a', 'b']);
  });

  it('builds the envelope around data serialized once, equal to serializing the whole envelope', () => {
    const data = { contact: { id: 'c1', name: 'Ann "A" \u2028' }, next_actions: [] };
    const envelope = { status: 0, message: 'OK', timestamp: 1795705529, data };
    expect(JSON.parse(envelopeJson(envelope, JSON.stringify(data)))).toEqual(envelope);
    const withSummary = { ...envelope, contacts_count: { all: [] }, team_stream: null };
    expect(JSON.parse(envelopeJson(withSummary, JSON.stringify(data)))).toEqual(withSummary);
    expect(JSON.parse(envelopeJson({ data: [] }, '[]'))).toEqual({ data: [] });
    // The tag hashes the same text whether or not the caller passes it.
    expect(replyTag('GET', 'ContactReply', data, JSON.stringify(data))).toBe(replyTag('GET', 'ContactReply', data));
  });

  it('tags the UTF-8 bytes of data (passed on from crm-core undecoded) as it tags their text', () => {
    const json = JSON.stringify({ contact: { id: 'c1', modified_at: '2026-01-02T03:04:05.678Z', name: 'Zoë 🎉 \u2028' } });
    const version = Date.parse('2026-01-02T03:04:05.678Z');
    expect(versionedTag('GET', version, new TextEncoder().encode(json))).toBe(versionedTag('GET', version, json));
    expect(versionedTag('GET', version, Buffer.from(json))).toMatch(new RegExp(`^"${version.toString(36)}\\.`));
    const envelope = { status: 0, message: 'OK', data: JSON.parse(json) };
    expect(JSON.parse(Buffer.concat([Buffer.from(envelopeHead(envelope)), Buffer.from(json), Buffer.from('}')]).toString())).toEqual(
      envelope,
    );
  });
});
