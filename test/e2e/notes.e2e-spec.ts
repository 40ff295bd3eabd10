import { setupE2e } from './setup';
import { aToday } from './utc-days';
import { recordCalls, type Json } from './record-helpers';

const NOTE_KEYS = [
  'attachments',
  'author',
  'contact_id',
  'created_at',
  'date',
  'id',
  'linked_deal_id',
  'linked_deal_name',
  'modified_at',
  'text',
];
const CALL_KEYS = [
  'attachments',
  'author',
  'call_result',
  'call_time_int',
  'contact_id',
  'created_at',
  'id',
  'index',
  'modified_at',
  'phone_number',
  'recording_link',
  'text',
  'via',
];
const MEETING_KEYS = [
  'attachments',
  'author',
  'contact_id',
  'created_at',
  'id',
  'index',
  'meeting_time_int',
  'modified_at',
  'place',
  'text',
];
const FOREIGN_ID = 'f'.repeat(24);

/** Notes, calls and meetings over HTTP (spec "POST /notes", "Note", "Call"; decisions.md "Deals and actions"). */
describe('notes, calls and meetings (e2e)', () => {
  const { services, admin, stranger, member } = setupE2e({ stranger: { name: 'Stranger Ltd' }, member: true });

  const { call, ok, contact } = recordCalls(() => services);

  describe('notes', () => {
    it('logs a note with the spec defaults, markup as sent and linked_deal_id "" without a deal', async () => {
      const person = await contact(admin);
      const res = await call(admin)<Json>('POST', '/notes.json', {
        contact_id: person.id,
        text: 'Said [b]yes[/b], [i]maybe[/i]',
        user_ids_to_notify: [member.user.id],
      });
      expect(res.status).toBe(201);
      const note = res.body.data.note;
      expect(Object.keys(note).sort()).toEqual(NOTE_KEYS);
      expect(note).toMatchObject({
        contact_id: person.id,
        text: 'Said [b]yes[/b], [i]maybe[/i]',
        date: aToday(),
        linked_deal_id: '',
        linked_deal_name: '',
        author: 'Ada Admin',
        attachments: [],
      });
      expect((await ok(admin, 'GET', `/notes/${note.id}`)).note).toEqual(note);

      const deal = (await ok(admin, 'POST', `/contacts/${person.id}/deals`, { name: 'Renewal' }, 201)).deal;
      expect(deal.has_related_notes).toBe(false);
      const linked = (
        await ok(
          member,
          'POST',
          `/contacts/${person.id}/notes`,
          {
            text: 'About the renewal',
            linked_deal_id: deal.id,
            date: '2025-06-01',
          },
          201,
        )
      ).note;
      expect(linked).toMatchObject({
        contact_id: person.id,
        linked_deal_id: deal.id,
        linked_deal_name: 'Renewal',
        date: '2025-06-01',
        author: 'Uma User',
      });
      expect((await ok(admin, 'GET', `/deals/${deal.id}`)).deal.has_related_notes).toBe(true);

      const listed = await ok(admin, 'GET', `/contacts/${person.id}/notes`);
      expect(listed).toMatchObject({
        total_count: 2,
        page: 1,
        per_page: 10,
        max_page: 1,
      });
      expect(listed.notes.map((e: Json) => e.note.id)).toEqual([note.id, linked.id]);
      expect((await ok(admin, 'GET', '/notes?sort_by=date')).notes.map((e: Json) => e.note.id)).toEqual([linked.id, note.id]);
      expect(
        (await ok(admin, 'GET', `/contacts?fields=notes(all)&search=Lee`)).contacts.find((w: Json) => w.contact.id === person.id).notes,
      ).toHaveLength(2);
    });

    it('replaces, partially updates and deletes notes', async () => {
      const person = await contact(admin);
      const note = (await ok(admin, 'POST', '/notes', { contact_id: person.id, text: 'First', date: '2025-01-01' }, 201)).note;
      const missingText = await call(admin)<Json>('PUT', `/notes/${note.id}`, {
        date: '2025-02-02',
      });
      expect(missingText.status).toBe(400);
      expect(missingText.body.errors).toHaveProperty('text');
      const replaced = (await ok(admin, 'PUT', `/notes/${note.id}`, { text: 'Second' })).note;
      expect(replaced).toMatchObject({
        text: 'Second',
        date: aToday(),
        linked_deal_id: '',
      });
      const partial = (
        await ok(admin, 'PUT', `/notes/${note.id}?partial=true`, {
          date: '2024-12-24',
        })
      ).note;
      expect(partial).toMatchObject({ text: 'Second', date: '2024-12-24' });
      const withFile = (
        await ok(admin, 'PUT', `/notes/${note.id}?partial=true`, {
          attachments: [
            {
              filename: 'offer.pdf',
              url: 'https://files.example/offer.pdf',
              size: 1234,
              pinned: true,
              storage_provider: 'dropbox',
            },
          ],
        })
      ).note;
      expect(withFile.attachments).toEqual([
        {
          id: expect.stringMatching(/^[0-9a-f]{24}$/),
          filename: 'offer.pdf',
          custom_filename: '',
          pinned: true,
          pinned_at: expect.any(Number),
          size: 1234,
          storage_provider: 'dropbox',
          url: 'https://files.example/offer.pdf',
          url_expires_at: null,
          thumbnail: null,
        },
      ]);
      const pinned = (await ok(admin, 'GET', '/contacts?fields=pinned_attachments(all)&search=Lee')).contacts.find(
        (w: Json) => w.contact.id === person.id,
      );
      expect(pinned.pinned_attachments.map((a: Json) => a.id)).toEqual([withFile.attachments[0].id]);
      expect((await call(admin)('DELETE', `/notes/${note.id}`)).status).toBe(200);
      expect((await call(admin)('GET', `/notes/${note.id}`)).status).toBe(404);
      expect((await call(admin)('DELETE', `/notes/${note.id}`)).status).toBe(404);
    });

    it('refuses bad input and keeps notes inside their account', async () => {
      const person = await contact(admin);
      for (const [body, key] of [
        [{ contact_id: person.id }, 'text'],
        [{ contact_id: person.id, text: '' }, 'text'],
        [{ contact_id: person.id, text: 'nul \u0000 inside' }, 'text'],
        [{ text: 'x' }, 'contact_id'],
        [{ contact_id: person.id, text: 'x', date: '2025-02-30' }, 'date'],
        [{ contact_id: person.id, text: 'x', user_ids_to_notify: 'all' }, 'user_ids_to_notify'],
        [
          {
            contact_id: person.id,
            text: 'x',
            attachments: [{ filename: 'a', url: 'ftp://x' }],
          },
          'attachments.0.url',
        ],
      ] as Array<[Record<string, unknown>, string]>) {
        const res = await call(admin)<Json>('POST', '/notes', body);
        expect([key, res.status, res.body.error_name]).toEqual([key, 400, 'invalid_request_data']);
        expect(Object.keys(res.body.errors)).toContain(key);
      }
      const theirs = await contact(stranger);
      expect(
        (
          await call(admin)<Json>('POST', '/notes', {
            contact_id: theirs.id,
            text: 'x',
          })
        ).body.error_name,
      ).toBe('resource_not_found');
      expect(
        (
          await call(admin)<Json>('POST', '/notes', {
            contact_id: person.id,
            text: 'x',
            user_ids_to_notify: [stranger.user.id],
          })
        ).status,
      ).toBe(404);
      expect(
        (
          await call(admin)<Json>('POST', '/notes', {
            contact_id: person.id,
            text: 'x',
            linked_deal_id: FOREIGN_ID,
          })
        ).status,
      ).toBe(404);
      const note = (await ok(admin, 'POST', '/notes', { contact_id: person.id, text: 'Mine' }, 201)).note;
      for (const [method, body] of [
        ['GET', undefined],
        ['PUT', { text: 'x' }],
        ['DELETE', undefined],
      ] as const) {
        const res = await call(stranger)<Json>(method, `/notes/${note.id}`, body);
        expect([method, res.status, res.body.error_name]).toEqual([method, 404, 'resource_not_found']);
      }
      expect((await ok(stranger, 'GET', '/notes')).total_count).toBe(0);
      expect((await call(stranger)('GET', `/contacts/${person.id}/notes`)).status).toBe(404);
    });
  });

  describe('calls and meetings', () => {
    it('logs, lists, updates and deletes calls', async () => {
      const person = await contact(admin);
      const before = Math.floor(Date.now() / 1000);
      const res = await call(admin)<Json>('POST', '/calls', {
        contact_id: person.id,
        text: 'Left a message',
        call_result: 'left_message',
        via: 'mobile',
        phone_number: '+1 555 0100',
      });
      expect(res.status).toBe(201);
      const logged = res.body.data.call;
      expect(Object.keys(logged).sort()).toEqual(CALL_KEYS);
      expect(logged).toMatchObject({
        contact_id: person.id,
        call_result: 'left_message',
        via: 'mobile',
        phone_number: '+1 555 0100',
        recording_link: '',
        author: 'Ada Admin',
      });
      expect(logged.call_time_int).toBeGreaterThanOrEqual(before - 1);
      const older = (
        await ok(
          admin,
          'POST',
          `/contacts/${person.id}/calls`,
          {
            call_time_int: 1_700_000_000,
            recording_link: 'https://rec.example/1',
          },
          201,
        )
      ).call;
      expect((await ok(admin, 'GET', `/contacts/${person.id}/calls`)).calls.map((e: Json) => e.call.id)).toEqual([logged.id, older.id]);
      const updated = (
        await ok(admin, 'PUT', `/calls/${older.id}?partial=true`, {
          call_result: 'interested',
        })
      ).call;
      expect(updated).toMatchObject({
        call_result: 'interested',
        call_time_int: 1_700_000_000,
        recording_link: 'https://rec.example/1',
      });
      const replaced = (
        await ok(admin, 'PUT', `/calls/${older.id}`, {
          text: 'Replaced',
          call_time_int: 1_600_000_000,
        })
      ).call;
      expect(replaced).toMatchObject({
        text: 'Replaced',
        call_result: '',
        recording_link: '',
        call_time_int: 1_600_000_000,
      });
      for (const [body, key] of [
        [{ contact_id: person.id, call_time_int: 'noon' }, 'call_time_int'],
        [{ contact_id: person.id, recording_link: 'not a url' }, 'recording_link'],
        [{ contact_id: person.id, call_result: 'x'.repeat(101) }, 'call_result'],
        [{ contact_id: person.id, call_result: 'maybe' }, 'call_result'],
      ] as Array<[Record<string, unknown>, string]>) {
        const bad = await call(admin)<Json>('POST', '/calls', body);
        expect([key, bad.status]).toEqual([key, 400]);
        expect(Object.keys(bad.body.errors)).toContain(key);
      }
      expect((await call(stranger)('GET', `/calls/${logged.id}`)).status).toBe(404);
      expect((await call(admin)('DELETE', `/calls/${logged.id}`)).status).toBe(200);
      expect((await ok(admin, 'GET', `/calls?contact_id=${person.id}`)).total_count).toBe(1);
    });

    it('logs, lists, updates and deletes meetings', async () => {
      const person = await contact(admin);
      const res = await call(admin)<Json>('POST', '/meetings', {
        contact_id: person.id,
        text: 'Demo',
        place: 'Dublin',
        meeting_time_int: 1_800_000_000,
      });
      expect(res.status).toBe(201);
      const meeting = res.body.data.meeting;
      expect(Object.keys(meeting).sort()).toEqual(MEETING_KEYS);
      expect(meeting).toMatchObject({
        contact_id: person.id,
        text: 'Demo',
        place: 'Dublin',
        meeting_time_int: 1_800_000_000,
        author: 'Ada Admin',
        attachments: [],
      });
      const second = (await ok(member, 'POST', `/contacts/${person.id}/meetings`, { text: 'Follow-up' }, 201)).meeting;
      expect(second.author).toBe('Uma User');
      expect((await ok(admin, 'GET', '/meetings?sort_by=meeting_time_int&order=asc')).meetings.map((e: Json) => e.meeting.id)).toEqual([
        second.id,
        meeting.id,
      ]);
      expect(
        (
          await ok(admin, 'PUT', `/meetings/${meeting.id}?partial=true`, {
            place: 'Cork',
          })
        ).meeting,
      ).toMatchObject({ place: 'Cork', text: 'Demo' });
      expect(
        (
          await call(admin)<Json>('POST', '/meetings', {
            contact_id: person.id,
            place: 'x'.repeat(501),
          })
        ).body.errors,
      ).toHaveProperty('place');
      expect((await call(stranger)('PUT', `/meetings/${meeting.id}`, { text: 'x' })).status).toBe(404);
      expect((await call(admin)('DELETE', `/meetings/${meeting.id}`)).status).toBe(200);
      expect((await call(admin)('GET', `/meetings/${meeting.id}`)).status).toBe(404);
      const listed = await ok(admin, 'GET', `/contacts?fields=meetings(all),calls(all)&search=Lee`);
      const entry = listed.contacts.find((w: Json) => w.contact.id === person.id);
      expect(entry.meetings.map((e: Json) => e.meeting.id)).toEqual([second.id]);
      expect(entry.calls).toEqual([]);
    });
  });

  it("filters notes, calls, meetings and actions by company_id: the records of the company's contacts only", async () => {
    const inCompany = await contact(admin, { last_name: 'Inside', company_name: 'Filter Works' });
    const outside = await contact(admin, { last_name: 'Outside', company_name: 'Other Works' });
    for (const who of [inCompany, outside]) {
      await ok(admin, 'POST', '/notes', { contact_id: who.id, text: `note of ${who.last_name}` }, 201);
      await ok(admin, 'POST', '/calls', { contact_id: who.id, text: `call of ${who.last_name}` }, 201);
      await ok(admin, 'POST', '/meetings', { contact_id: who.id, text: `meeting of ${who.last_name}` }, 201);
      await ok(admin, 'POST', '/actions', { contact_id: who.id, text: `action of ${who.last_name}`, status: 'waiting' }, 201);
    }
    const companyId = inCompany.company_id as string;
    for (const [path, key] of [
      ['/notes', 'note'],
      ['/calls', 'call'],
      ['/meetings', 'meeting'],
      ['/actions', 'action'],
    ] as const) {
      const list = await ok(admin, 'GET', `${path}?company_id=${companyId}&per_page=100`);
      expect({ path, contacts: [...new Set(list[`${key}s`].map((r: Json) => r[key].contact_id))] }).toEqual({
        path,
        contacts: [inCompany.id],
      });
      expect(list.total_count).toBe(1);
      const unknown = await call(admin)('GET', `${path}?company_id=${FOREIGN_ID}`);
      expect({ path, status: unknown.status }).toEqual({ path, status: 404 });
    }
    // Another account's company is unknown here.
    const theirs = await contact(stranger, { last_name: 'Theirs', company_name: 'Their Works' });
    expect((await call(admin)('GET', `/notes?company_id=${theirs.company_id}`)).status).toBe(404);
  });

  it('documents every route in the OpenAPI document', async () => {
    const doc = (await (await fetch(`${services.gatewayUrl}/api/v3/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    for (const name of ['notes', 'calls', 'meetings']) {
      expect(Object.keys(doc.paths[`/${name}`]).sort()).toEqual(['get', 'post']);
      expect(Object.keys(doc.paths[`/${name}/{${name.slice(0, -1)}_id}`]).sort()).toEqual(['delete', 'get', 'put']);
      expect(Object.keys(doc.paths[`/contacts/{contact_id}/${name}`]).sort()).toEqual(['get', 'post']);
    }
  });
});
