import { api, type CreatedAccount } from '@crm/testing';
import { setupE2e } from './setup';

type Counts = Record<string, number> & { total_count: number };
type Status = {
  id: string;
  status: string;
  text: string;
  description: string;
  color: string;
  counts: number;
  total_count: number;
  action_stream_count: number;
  team_counts: Array<{ user_id: string; counts: number }>;
};
type LeadSource = {
  id: string;
  text: string;
  counts: number;
  total_count: number;
  action_stream_count: number;
  team_counts: Array<{ user_id: string; counts: number }>;
};
type Tag = { name: string; counts: number; total_count: number; action_stream_count: number };
type Paged = { total_count: number; page: number; per_page: number; max_page: number };
type StatusBody = { data: { status: Status } };
type StatusesBody = { data: Paged & { statuses: Array<{ status: Status }> } };
type LeadSourceBody = { data: LeadSource };
type TagsBody = { data: Paged & { tags: Tag[]; system_tags: Tag[] } };
type ContactBody = { data: { contact: { id: string; status: string; status_id: string; lead_source_id: string; tags: string[] } } };
type ContactsBody = { data: Paged & { contacts: Array<{ contact: { id: string } }> } };
type Filter = { id: string; name: string; conditions: Array<Record<string, unknown>>; created_at: string; modified_at: string };
type FilterBody = { data: { filter: Filter } };
type Relationship = {
  id: string;
  contact_id: string;
  related_contact_id: string;
  variant_id: string;
  label: string;
  reverse_label: string;
  symmetrical: boolean;
};
type ErrorBody = { status: number; error_name: string; errors: Record<string, string> };
type Summary = {
  lead_sources: LeadSource[];
  statuses: Array<{ status: Status }>;
  tags: { tags: Tag[]; system_tags: Tag[] };
  contacts_count: { all: Counts[]; users: Array<Counts & { user_id: string }> };
  team_stream: { all: number; users: Array<{ user_id: string; counts: number }> };
};

/** Statuses, lead sources, tags, saved filters, contact relationships, pipelines, call results and bootstrap over HTTP. */
describe('account configuration (e2e)', () => {
  const { services, admin, stranger, member } = setupE2e({ stranger: true, member: true });

  const call = (who: CreatedAccount) => api(services, who);
  const contact = async (who: CreatedAccount, body: Record<string, unknown>) => {
    const res = await call(who)<ContactBody>('POST', '/contacts', body);
    expect(res.status).toBe(201);
    return res.body.data.contact;
  };
  const statuses = async (who: CreatedAccount) =>
    (await call(who)<StatusesBody>('GET', '/statuses?per_page=100')).body.data.statuses.map((s) => s.status);
  const expectError = (res: { status: number; body: unknown }, http: number, name: string) => {
    expect(res.status).toBe(http);
    expect(res.body).toMatchObject({ error_name: name });
  };

  it('lists the seeded statuses (lead first) with counts that follow the contacts', async () => {
    const list = await call(member)<StatusesBody>('GET', '/statuses.json');
    expect(list.status).toBe(200);
    expect(list.body.data).toMatchObject({ total_count: 5, page: 1, per_page: 10, max_page: 1 });
    const [lead] = list.body.data.statuses.map((s) => s.status);
    expect(lead).toMatchObject({ status: 'lead', text: 'Lead', total_count: 0, action_stream_count: 0 });
    // OnePageCRM's type keys; Trial, which has none of its own, is the account's first custom status.
    expect(list.body.data.statuses.map((s) => [s.status.status, s.status.text])).toEqual([
      ['lead', 'Lead'],
      ['prospect', 'Prospect'],
      ['custom1', 'Trial'],
      ['customer', 'Customer'],
      ['inactive', 'Inactive'],
    ]);
    expect(Object.keys(lead).sort()).toEqual([
      'action_stream_count',
      'color',
      'counts',
      'description',
      'id',
      'status',
      'team_counts',
      'text',
      'total_count',
    ]);
    // Integers, as OnePageCRM has them: counts the caller's own contacts, total_count the account's.
    expect(lead).toMatchObject({ counts: 0, total_count: 0 });
    expect(lead.team_counts.map((t) => t.user_id).sort()).toEqual([admin.user.id, member.user.id].sort());

    await contact(admin, { first_name: 'Ann', last_name: 'Archer' });
    await contact(member, { last_name: 'Baker' });
    const after = (await call(admin)<StatusBody>('GET', `/statuses/${lead.id}`)).body.data.status;
    expect(after.total_count).toBe(2);
    expect(after.counts).toBe(1);
    expect(after.team_counts.find((t) => t.user_id === member.user.id)!.counts).toBe(1);
  });

  it('creates, updates and deletes statuses; deleting one moves its contacts to lead', async () => {
    const created = await call(admin)<StatusBody>('POST', '/statuses', {
      text: ' Negotiating ',
      description: 'Talking money',
      color: '#ff8800',
    });
    expect(created.status).toBe(201);
    const status = created.body.data.status;
    // The type key is assigned: the account's next custom number (Trial holds custom1).
    expect(status).toMatchObject({
      status: 'custom2',
      text: 'Negotiating',
      description: 'Talking money',
      color: '#ff8800',
      total_count: 0,
    });
    const dup = await call(admin)<ErrorBody>('POST', '/statuses', { text: 'NEGOTIATING' });
    expectError(dup, 400, 'duplicated_entity');
    expect(Object.keys(dup.body.errors)).toEqual(['text']);
    expectError(await call(admin)('POST', '/statuses', { text: 'lead' }), 400, 'duplicated_entity');
    expectError(await call(member)('POST', '/statuses', { text: 'Mine' }), 403, 'no_permission_to_complete_action');
    const bad = await call(admin)<ErrorBody>('POST', '/statuses', { text: '', color: 'red' });
    expectError(bad, 400, 'invalid_request_data');
    expect(Object.keys(bad.body.errors).sort()).toEqual(['color', 'text']);
    // OnePageCRM's limit: at most 20 characters.
    const long = await call(admin)<ErrorBody>('POST', '/statuses', { text: 'x'.repeat(21) });
    expectError(long, 400, 'invalid_request_data');
    expect(Object.keys(long.body.errors)).toEqual(['text']);
    // `status` is the read-only type key: a create naming one is refused, saying so.
    const keyed = await call(admin)<ErrorBody>('POST', '/statuses', { text: 'Keyed', status: 'prospect' });
    expectError(keyed, 400, 'invalid_request_data');
    expect(keyed.body.errors).toEqual({ status: expect.stringContaining('read-only') });

    const patched = await call(admin)<StatusBody>('PATCH', `/statuses/${status.id}`, { text: 'Haggling' });
    expect(patched.body.data.status).toMatchObject({ status: 'custom2', text: 'Haggling', description: 'Talking money' });
    const put = await call(admin)<StatusBody>('PUT', `/statuses/${status.id}`, { text: 'Negotiation' });
    expect(put.body.data.status).toMatchObject({ status: 'custom2', text: 'Negotiation', description: '', color: '#9E9E9E' });
    const partial = await call(admin)<StatusBody>('PUT', `/statuses/${status.id}?partial=true`, { color: '#00ff00' });
    expect(partial.body.data.status).toMatchObject({ status: 'custom2', text: 'Negotiation', color: '#00ff00' });
    // A client sending back what it read (the current key included) changes what it changed.
    const read = partial.body.data.status;
    const sentBack = await call(admin)<StatusBody>('PUT', `/statuses/${status.id}`, {
      status: read.status,
      text: read.text,
      color: read.color,
      description: 'Back',
    });
    expect(sentBack.status).toBe(200);
    expect(sentBack.body.data.status).toMatchObject({ status: 'custom2', text: 'Negotiation', description: 'Back', color: '#00ff00' });
    // OnePageCRM's colors are six hex digits without the #.
    const palette = await call(admin)<StatusBody>('PATCH', `/statuses/${status.id}`, { color: '3399ff' });
    expect(palette.body.data.status).toMatchObject({ status: 'custom2', color: '#3399ff' });
    for (const method of ['PUT', 'PATCH'] as const) {
      const rekey = await call(admin)<ErrorBody>(method, `/statuses/${status.id}`, { text: 'Negotiation', status: 'customer' });
      expectError(rekey, 400, 'invalid_request_data');
      expect(rekey.body.errors).toEqual({ status: expect.stringContaining('read-only') });
    }
    expectError(await call(admin)('PATCH', `/statuses/${status.id}`, { text: 'Customer' }), 400, 'duplicated_entity');

    // A contact shows the status's name as `status` (OnePageCRM's "Prospect"), and its id as `status_id`.
    const moved = await contact(admin, { last_name: 'Mover', status_id: status.id });
    expect(moved).toMatchObject({ status: 'Negotiation', status_id: status.id });
    expect((await call(admin)<StatusBody>('GET', `/statuses/${status.id}`)).body.data.status.total_count).toBe(1);
    await call(admin)('PATCH', `/statuses/${status.id}`, { text: 'Closing' });
    expect((await call(admin)<ContactBody>('GET', `/contacts/${moved.id}`)).body.data.contact).toMatchObject({
      status: 'Closing',
      status_id: status.id,
    });
    // Filters by status take its id: the list parameter and a saved filter's condition.
    type Listed = { data: { contacts: Array<{ contact: { id: string; status: string } }> } };
    const listed = (await call(admin)<Listed>('GET', `/contacts?status_id=${status.id}`)).body.data.contacts.map((c) => c.contact);
    expect(listed).toEqual([expect.objectContaining({ id: moved.id, status: 'Closing' })]);
    const byStatus = (
      await call(admin)<FilterBody>('POST', '/filters', {
        name: 'Closing ones',
        conditions: [{ field: 'status_id', operator: 'in', value: [status.id] }],
      })
    ).body.data.filter;
    const filtered = (await call(admin)<Listed>('GET', `/contacts?filter_id=${byStatus.id}`)).body.data.contacts.map((c) => c.contact.id);
    expect(filtered).toEqual([moved.id]);
    await call(admin)('DELETE', `/filters/${byStatus.id}`);
    const lead = (await statuses(admin))[0];
    expectError(await call(admin)('DELETE', `/statuses/${lead.id}`), 400, 'invalid_request_data');
    expectError(await call(member)('DELETE', `/statuses/${status.id}`), 403, 'no_permission_to_complete_action');
    const deleted = await call(admin)('DELETE', `/statuses/${status.id}.json`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toMatchObject({ status: 0, data: {} });
    expect((await call(admin)<ContactBody>('GET', `/contacts/${moved.id}`)).body.data.contact.status_id).toBe(lead.id);
    expectError(await call(admin)('GET', `/statuses/${status.id}`), 404, 'resource_not_found');
    expect((await statuses(admin)).map((s) => s.id)).not.toContain(status.id);
    // A deleted status's number is not handed out again.
    const next = (await call(admin)<StatusBody>('POST', '/statuses', { text: 'Negotiating' })).body.data.status;
    expect(next).toMatchObject({ status: 'custom3', text: 'Negotiating' });
    await call(admin)('DELETE', `/statuses/${next.id}`);
  });

  it('manages lead sources with counts', async () => {
    const created = await call(admin)<LeadSourceBody>('POST', '/lead_sources', { text: 'Web form' });
    expect(created.status).toBe(201);
    // One lead source is flat in data, as the spec and OnePageCRM have it.
    const source = created.body.data;
    expect(Object.keys(source).sort()).toEqual(['action_stream_count', 'counts', 'id', 'team_counts', 'text', 'total_count']);
    expectError(await call(admin)('POST', '/lead_sources', { text: 'WEB FORM' }), 400, 'duplicated_entity');
    expectError(await call(member)('POST', '/lead_sources', { text: 'Other' }), 403, 'no_permission_to_complete_action');
    expectError(await call(admin)('POST', '/lead_sources', {}), 400, 'invalid_request_data');

    const referred = await contact(member, { last_name: 'Zed', lead_source_id: source.id });
    const got = await call(member)<LeadSourceBody>('GET', `/lead_sources/${source.id}`);
    expect(got.body.data).toMatchObject({ text: 'Web form', total_count: 1, counts: 1 });
    const renamed = await call(admin)<LeadSourceBody>('PUT', `/lead_sources/${source.id}`, { text: 'Website' });
    expect(renamed.body.data).toMatchObject({ text: 'Website', total_count: 1 });
    const list = await call(member)<{ data: Paged & { lead_sources: Array<{ lead_source: LeadSource }> } }>('GET', '/lead_sources');
    expect(list.body.data).toMatchObject({ total_count: 1, max_page: 1 });
    expect(list.body.data.lead_sources[0].lead_source.id).toBe(source.id);

    expect((await call(admin)('DELETE', `/lead_sources/${source.id}`)).status).toBe(200);
    expect((await call(admin)<ContactBody>('GET', `/contacts/${referred.id}`)).body.data.contact.lead_source_id).toBe('');
  });

  it('lists tags with counts and system tags; deletes a tag everywhere; change_status and assign_tag carry the summary blocks', async () => {
    const vip = await contact(admin, { first_name: 'Val', last_name: 'Ives', starred: true });
    const assigned = await call(admin)<{ data: unknown } & Summary>('PUT', `/contacts/${vip.id}/assign_tag/VIP`);
    expect(assigned.status).toBe(200);
    expect(Object.keys(assigned.body).sort()).toEqual([
      'contacts_count',
      'data',
      'lead_sources',
      'message',
      'status',
      'statuses',
      'tags',
      'team_stream',
      'timestamp',
    ]);
    expect(assigned.body.tags.tags.find((t) => t.name === 'VIP')).toMatchObject({
      total_count: 1,
      counts: 1,
    });
    expect(assigned.body.contacts_count.all).toHaveLength(1);
    expect(assigned.body.contacts_count.all[0].total_count).toBeGreaterThanOrEqual(1);
    expect(assigned.body.contacts_count.users.map((u) => u.user_id).sort()).toEqual([admin.user.id, member.user.id].sort());

    const customer = (await statuses(admin)).find((s) => s.status === 'customer')!;
    const changed = await call(admin)<Summary>('PUT', `/contacts/${vip.id}/change_status/${customer.id}`);
    expect(changed.status).toBe(200);
    expect(changed.body.statuses.find((s) => s.status.id === customer.id)!.status.total_count).toBe(1);

    const tags = await call(member)<TagsBody>('GET', '/tags');
    expect(tags.status).toBe(200);
    expect(tags.body.data.tags).toEqual([{ name: 'VIP', counts: 1, total_count: 1, action_stream_count: 0 }]);
    expect(tags.body.data.system_tags.map((t) => t.name)).toEqual(['starred', 'pending_deal']);
    expect(tags.body.data.system_tags[0].total_count).toBe(1);
    expect(tags.body.data).toMatchObject({ total_count: 1, page: 1, max_page: 1 });

    expectError(await call(member)('DELETE', '/tags/vip'), 403, 'no_permission_to_complete_action');
    expectError(await call(stranger)('DELETE', '/tags/vip'), 404, 'resource_not_found');
    expect((await call(admin)('DELETE', '/tags/vip')).status).toBe(200);
    expect((await call(admin)<ContactBody>('GET', `/contacts/${vip.id}`)).body.data.contact.tags).toEqual([]);
    expect((await call(admin)<TagsBody>('GET', '/tags')).body.data.tags).toEqual([]);
  });

  it('saves filters whose conditions select contacts on GET /contacts', async () => {
    const lead = (await statuses(admin))[0];
    const a = await contact(admin, { first_name: 'Flo', last_name: 'Filter', emails: [{ type: 'work', value: 'flo@filter.example' }] });
    const b = await contact(member, { first_name: 'Fay', last_name: 'Filter' });
    await call(admin)('PUT', `/contacts/${b.id}/assign_tag/Hot`);

    const created = await call(admin)<FilterBody>('POST', '/filters', {
      name: 'Filter folk',
      conditions: [
        { field: 'last_name', operator: 'equals', value: 'filter' },
        { field: 'status_id', operator: 'in', value: [lead.id] },
      ],
    });
    expect(created.status).toBe(201);
    const filter = created.body.data.filter;
    expect(Object.keys(filter).sort()).toEqual(['conditions', 'created_at', 'id', 'modified_at', 'name']);
    const ids = async (filterId: string) =>
      (await call(admin)<ContactsBody>('GET', `/contacts?team=true&filter_id=${filterId}&per_page=100`)).body.data.contacts
        .map((c) => c.contact.id)
        .sort();
    expect(await ids(filter.id)).toEqual([a.id, b.id].sort());

    const hot = await call(admin)<FilterBody>('PATCH', `/filters/${filter.id}`, {
      conditions: [{ field: 'tag', operator: 'has_any', value: ['HOT'] }],
    });
    expect(hot.status).toBe(200);
    expect(hot.body.data.filter.name).toBe('Filter folk');
    expect(await ids(filter.id)).toEqual([b.id]);
    const owned = await call(admin)<FilterBody>('PUT', `/filters/${filter.id}`, {
      name: 'Mine',
      conditions: [
        { field: 'owner_id', operator: 'in', value: [admin.user.id] },
        { field: 'email', operator: 'contains', value: '@filter.' },
      ],
    });
    expect(owned.body.data.filter.name).toBe('Mine');
    expect(await ids(filter.id)).toEqual([a.id]);

    const invalid = await call(admin)<ErrorBody>('POST', '/filters', {
      name: 'Bad',
      conditions: [{ field: 'last_name', operator: 'in', value: 'x' }, { field: 'starred' }],
    });
    expectError(invalid, 400, 'invalid_request_data');
    expect(Object.keys(invalid.body.errors).sort()).toEqual(['conditions.0.operator', 'conditions.1.operator']);
    const foreign = await call(admin)<ErrorBody>('POST', '/filters', {
      name: 'Foreign',
      conditions: [{ field: 'owner_id', operator: 'in', value: [stranger.user.id] }],
    });
    expectError(foreign, 404, 'resource_not_found');
    expect(Object.keys(foreign.body.errors)).toEqual(['conditions.0.value']);
    expectError(await call(admin)('POST', '/filters', { name: 'mine' }), 400, 'duplicated_entity');
    expectError(await call(member)('POST', '/filters', { name: 'Member' }), 403, 'no_permission_to_complete_action');
    expect((await call(member)<FilterBody>('GET', `/filters/${filter.id}`)).body.data.filter.name).toBe('Mine');
    expect(
      (await call(member)<{ data: Paged & { filters: Array<{ filter: Filter }> } }>('GET', '/filters')).body.data.filters.map(
        (f) => f.filter.id,
      ),
    ).toEqual([filter.id]);

    expect((await call(admin)('DELETE', `/filters/${filter.id}`)).status).toBe(200);
    expectError(await call(admin)('GET', `/contacts?filter_id=${filter.id}`), 404, 'resource_not_found');
  });

  it('relates contacts: one label for both ends of a symmetrical type, one per end of a directional type', async () => {
    const type = (
      await call(admin)<{ data: { relationship_type: { id: string; relationship_variants: Array<{ id: string; name: string }> } } }>(
        'POST',
        '/relationship_types',
        { variants: [{ name: 'Parent' }, { name: 'Child' }] },
      )
    ).body.data.relationship_type;
    const spouse = (
      await call(admin)<{ data: { relationship_type: { id: string } } }>('POST', '/relationship_types', { variants: [{ name: 'Spouse' }] })
    ).body.data.relationship_type;
    const [parent, child] = type.relationship_variants;
    const kid = await contact(member, { first_name: 'Kim', last_name: 'Kid' });
    const mom = await contact(member, { first_name: 'Mia', last_name: 'Kid' });
    const dad = await contact(member, { first_name: 'Dan', last_name: 'Kid' });

    const made = await call(member)<{ data: { relationship: Relationship } }>('POST', `/contacts/${kid.id}/relationships`, {
      relationship_type_id: type.id,
      related_contact_id: mom.id,
      variant_id: parent.id,
    });
    expect(made.status).toBe(201);
    expect(made.body.data.relationship).toMatchObject({
      contact_id: kid.id,
      related_contact_id: mom.id,
      variant_id: parent.id,
      label: 'Parent',
      reverse_label: 'Child',
      symmetrical: false,
    });
    const married = await call(member)<{ data: { relationship: Relationship } }>('POST', `/contacts/${mom.id}/relationships`, {
      relationship_type_id: spouse.id,
      related_contact_id: dad.id,
    });
    expect(married.body.data.relationship).toMatchObject({ label: 'Spouse', reverse_label: 'Spouse', symmetrical: true });

    const fromMom = await call(admin)<{ data: Paged & { relationships: Array<{ relationship: Relationship }> } }>(
      'GET',
      `/contacts/${mom.id}/relationships.json`,
    );
    expect(fromMom.body.data.total_count).toBe(2);
    expect(fromMom.body.data.relationships.map((r) => [r.relationship.related_contact_id, r.relationship.label])).toEqual([
      [kid.id, 'Child'],
      [dad.id, 'Spouse'],
    ]);
    expect(fromMom.body.data.relationships[0].relationship.variant_id).toBe(child.id);

    expectError(
      await call(member)('POST', `/contacts/${kid.id}/relationships`, {
        relationship_type_id: type.id,
        related_contact_id: mom.id,
        variant_id: child.id,
      }),
      400,
      'duplicated_entity',
    );
    const noVariant = await call(member)<ErrorBody>('POST', `/contacts/${kid.id}/relationships`, {
      relationship_type_id: type.id,
      related_contact_id: dad.id,
    });
    expectError(noVariant, 400, 'invalid_request_data');
    expect(Object.keys(noVariant.body.errors)).toEqual(['variant_id']);
    expectError(
      await call(member)('POST', `/contacts/${kid.id}/relationships`, { related_contact_id: dad.id }),
      400,
      'invalid_request_data',
    );

    expect((await call(member)('DELETE', `/contacts/${mom.id}/relationships/${made.body.data.relationship.id}`)).status).toBe(200);
    expect((await call(member)<{ data: Paged }>('GET', `/contacts/${kid.id}/relationships`)).body.data.total_count).toBe(0);
  });

  it('serves pipelines, call results and the bootstrap', async () => {
    const pipelines = await call(member)<{
      data: Paged & {
        pipelines: Array<{ pipeline: { id: string; type: string; default: boolean; stages: Array<{ stage: number; label: string }> } }>;
      };
    }>('GET', '/pipelines');
    expect(pipelines.status).toBe(200);
    expect(pipelines.body.data.pipelines.map((p) => [p.pipeline.type, p.pipeline.default])).toEqual([
      ['pipeline', true],
      ['sales_pipeline', true],
    ]);
    const first = pipelines.body.data.pipelines[0].pipeline;
    expect(first.stages[0]).toEqual({ stage: 10, label: 'Qualification' });
    expect((await call(member)<{ data: { pipeline: { id: string } } }>('GET', `/pipelines/${first.id}`)).body.data.pipeline.id).toBe(
      first.id,
    );
    const results = await call(member)<{ data: Paged & { call_results: Array<{ call_result: { id: string; text: string } }> } }>(
      'GET',
      '/call_results',
    );
    expect(results.body.data.call_results.map((r) => r.call_result.id)).toContain('no_answer');

    // Counts of calls per result, as OnePageCRM's list has them: the caller's, the account's, each user's.
    type CallResultEntry = {
      call_result: { result: string; counts: number; total_counts: number; team_counts: Array<{ user_id: string; counts: number }> };
    };
    const countsOf = async (who: typeof admin) =>
      (await call(who)<{ data: Paged & { call_results: CallResultEntry[] } }>('GET', '/call_results')).body.data.call_results.find(
        (r) => r.call_result.result === 'no_answer',
      )!.call_result;
    const before = await countsOf(member);
    const strangers = await countsOf(stranger);
    const logged = await call(member)<{ data: { contact: { id: string } } }>('POST', '/contacts', { last_name: 'Caller' });
    for (let i = 0; i < 2; i++)
      expect(
        (await call(member)('POST', '/calls', { contact_id: logged.body.data.contact.id, text: 'Rang', call_result: 'no_answer' })).status,
      ).toBe(201);
    const mine = await countsOf(member);
    expect(mine.counts).toBe(before.counts + 2);
    expect(mine.total_counts).toBe(before.total_counts + 2);
    expect(mine.team_counts.find((t) => t.user_id === member.user.id)?.counts).toBe(before.counts + 2);
    expect(mine.team_counts.map((t) => t.user_id)).toEqual(expect.arrayContaining([admin.user.id, member.user.id]));
    // The admin sees the same account total, and none of the calls as its own.
    const theirs = await countsOf(admin);
    expect(theirs.total_counts).toBe(mine.total_counts);
    expect(theirs.counts).toBe(mine.team_counts.find((t) => t.user_id === admin.user.id)?.counts);
    // Another account's calls never count.
    expect((await countsOf(stranger)).total_counts).toBe(strangers.total_counts);

    await call(admin)('POST', '/custom_fields', { name: 'Size', type: 'number' });
    await call(admin)('POST', '/filters', { name: 'Boot filter' });
    const boot = await call(member)<
      {
        data: Record<string, unknown> & {
          user: Record<string, unknown>;
          team: Array<Record<string, unknown>>;
          settings: Record<string, unknown>;
          call_results: Record<string, string>;
          call_results_order: string[];
        };
      } & Summary
    >('GET', '/bootstrap.json');
    expect(boot.status).toBe(200);
    const data = boot.body.data;
    // As OnePageCRM: the summary blocks beside data, user and team not wrapped, call results a map.
    expect(Object.keys(boot.body).sort()).toEqual(
      ['contacts_count', 'data', 'lead_sources', 'message', 'status', 'statuses', 'tags', 'team_stream', 'timestamp'].sort(),
    );
    expect(data.call_results).toMatchObject({ no_answer: 'No answer', other: 'Other' });
    expect(data.call_results_order).toEqual(['interested', 'not_interested', 'left_message', 'no_answer', 'other']);
    expect(boot.body.contacts_count.users.map((u) => u.user_id).sort()).toEqual([admin.user.id, member.user.id].sort());
    expect(Object.keys(data).sort()).toEqual(
      [
        'account_type',
        'auth_key',
        'call_results',
        'call_results_order',
        'company_fields',
        'contact_titles',
        'cost_setup',
        'custom_fields',
        'deal_fields',
        'filters',
        'next_action_dates',
        'pipelines',
        'predefined_action_groups',
        'predefined_actions',
        'relationship_types',
        'settings',
        'team',
        'user',
        'user_id',
      ].sort(),
    );
    expect(data.auth_key).toBeNull();
    expect(data.user_id).toBe(member.user.id);
    expect(data.user).toMatchObject({ id: member.user.id, role: 'user', bcc_email: expect.any(String) });
    expect(data.team.map((t) => t.id).sort()).toEqual([admin.user.id, member.user.id].sort());
    expect(data.team.find((t) => t.id === admin.user.id)!.bcc_email).toBeUndefined();
    expect(data.settings).toMatchObject({
      account_id: admin.account.id,
      lead_status_id: boot.body.statuses[0].status.id,
      role: 'user',
      auth_method: 'api_key',
      default_pipeline_id: first.id,
    });
    expect(data.custom_fields).toEqual([expect.objectContaining({ name: 'Size', type: 'number' })]);
    expect(data.filters).toEqual([expect.objectContaining({ name: 'Boot filter', conditions: [] })]);
    expect(data.contact_titles).toContain('Dr');
    expect(data.pipelines).toHaveLength(2);
  });

  it("keeps every record inside its account: another account's ids are 404", async () => {
    const status = (await call(admin)<StatusBody>('POST', '/statuses', { text: 'Private' })).body.data.status;
    const source = (await call(admin)<LeadSourceBody>('POST', '/lead_sources', { text: 'Private source' })).body.data;
    const filter = (await call(admin)<FilterBody>('POST', '/filters', { name: 'Private filter' })).body.data.filter;
    const person = await contact(admin, { last_name: 'Private' });
    const other = await contact(admin, { last_name: 'Other' });
    const type = (
      await call(admin)<{ data: { relationship_type: { id: string } } }>('POST', '/relationship_types', { variants: [{ name: 'Peer' }] })
    ).body.data.relationship_type;
    const rel = (
      await call(admin)<{ data: { relationship: Relationship } }>('POST', `/contacts/${person.id}/relationships`, {
        relationship_type_id: type.id,
        related_contact_id: other.id,
      })
    ).body.data.relationship;
    const pipeline = (await call(admin)<{ data: { pipelines: Array<{ pipeline: { id: string } }> } }>('GET', '/pipelines')).body.data
      .pipelines[0].pipeline;
    const mine = await contact(stranger, { last_name: 'Strange' });

    for (const [method, path, body] of [
      ['GET', `/statuses/${status.id}`, undefined],
      ['PUT', `/statuses/${status.id}`, { text: 'Stolen' }],
      ['PATCH', `/statuses/${status.id}`, { text: 'Stolen' }],
      ['DELETE', `/statuses/${status.id}`, undefined],
      ['GET', `/lead_sources/${source.id}`, undefined],
      ['PUT', `/lead_sources/${source.id}`, { text: 'Stolen' }],
      ['PATCH', `/lead_sources/${source.id}`, { text: 'Stolen' }],
      ['DELETE', `/lead_sources/${source.id}`, undefined],
      ['GET', `/filters/${filter.id}`, undefined],
      ['PUT', `/filters/${filter.id}`, { name: 'Stolen' }],
      ['PATCH', `/filters/${filter.id}`, { name: 'Stolen' }],
      ['DELETE', `/filters/${filter.id}`, undefined],
      ['GET', `/contacts?filter_id=${filter.id}`, undefined],
      ['GET', `/contacts/${person.id}/relationships`, undefined],
      ['POST', `/contacts/${person.id}/relationships`, { relationship_type_id: type.id, related_contact_id: mine.id }],
      ['POST', `/contacts/${mine.id}/relationships`, { relationship_type_id: type.id, related_contact_id: person.id }],
      ['POST', `/contacts/${mine.id}/relationships`, { relationship_type_id: type.id, related_contact_id: mine.id }],
      ['DELETE', `/contacts/${person.id}/relationships/${rel.id}`, undefined],
      ['DELETE', `/contacts/${mine.id}/relationships/${rel.id}`, undefined],
      ['GET', `/pipelines/${pipeline.id}`, undefined],
      ['POST', '/filters', { name: 'Spy', conditions: [{ field: 'status_id', operator: 'in', value: [status.id] }] }],
      ['POST', '/filters', { name: 'Spy', conditions: [{ field: 'lead_source_id', operator: 'in', value: [source.id] }] }],
    ] as const) {
      const res = await call(stranger)(method, path, body);
      expect({ method, path, status: res.status }).toEqual({ method, path, status: 404 });
      expect(res.body).toMatchObject({ error_name: 'resource_not_found' });
    }
    // The stranger's own lists never show the admin's records.
    expect((await statuses(stranger)).map((s) => s.id)).not.toContain(status.id);
    expect((await call(stranger)<{ data: Paged }>('GET', '/lead_sources')).body.data.total_count).toBe(0);
    expect((await call(stranger)<{ data: Paged }>('GET', '/filters')).body.data.total_count).toBe(0);
    // And nothing of the admin's was changed.
    expect((await call(admin)<StatusBody>('GET', `/statuses/${status.id}`)).body.data.status.text).toBe('Private');
    expect((await call(admin)<{ data: Paged }>('GET', `/contacts/${person.id}/relationships`)).body.data.total_count).toBe(1);
  });

  it('documents every route in the OpenAPI document', async () => {
    const doc = (await (await fetch(`${services.gatewayUrl}/api/v3/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const methods = (path: string) => Object.keys(doc.paths[path] ?? {}).sort();
    expect(methods('/statuses')).toEqual(['get', 'post']);
    expect(methods('/statuses/{status_id}')).toEqual(['delete', 'get', 'patch', 'put']);
    expect(methods('/lead_sources')).toEqual(['get', 'post']);
    expect(methods('/lead_sources/{lead_source_id}')).toEqual(['delete', 'get', 'patch', 'put']);
    expect(methods('/tags')).toEqual(['get']);
    expect(methods('/tags/{tag_name}')).toEqual(['delete']);
    expect(methods('/filters')).toEqual(['get', 'post']);
    expect(methods('/filters/{filter_id}')).toEqual(['delete', 'get', 'patch', 'put']);
    expect(methods('/contacts/{contact_id}/relationships')).toEqual(['get', 'post']);
    expect(methods('/contacts/{contact_id}/relationships/{relationship_id}')).toEqual(['delete', 'get', 'put']);
    expect(methods('/pipelines')).toEqual(['get']);
    expect(methods('/pipelines/{pipeline_id}')).toEqual(['get']);
    expect(methods('/call_results')).toEqual(['get']);
    expect(methods('/bootstrap')).toEqual(['get']);
  });
});
