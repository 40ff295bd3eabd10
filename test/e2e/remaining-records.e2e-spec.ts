import { recordCalls, type Json } from './record-helpers';
import { setupE2e } from './setup';

/**
 * The rest of OnePageCRM's company and relationship operations (issue 13, item 1; decisions.md
 * "Remaining OnePageCRM operations"), over HTTP.
 */
describe('remaining company and relationship operations (e2e)', () => {
  const { services, admin, stranger, member } = setupE2e({ stranger: { name: 'Stranger Ltd' }, member: true });
  const { call, ok, contact } = recordCalls(() => services);

  const expectError = async (who: typeof admin, method: string, path: string, body: unknown, status: number, errorName: string) => {
    const res = await call(who)<Json>(method, path, body);
    expect([method, path, res.status, res.body.error_name]).toEqual([method, path, status, errorName]);
    expect(Object.keys(res.body).sort()).toEqual(['error_message', 'error_name', 'errors', 'message', 'status']);
    return res.body;
  };

  it("lists the records of the company's contacts: actions, deals, notes, calls, meetings", async () => {
    const a = await contact(admin, { last_name: 'Alpha', company_name: 'Records Co' });
    const b = await contact(member, { last_name: 'Beta', company_name: 'Records Co' });
    const outsider = await contact(admin, { last_name: 'Out', company_name: 'Other Co' });
    for (const person of [a, b, outsider]) {
      await ok(admin, 'POST', '/notes', { contact_id: person.id, text: 'n' }, 201);
      await ok(admin, 'POST', '/calls', { contact_id: person.id, text: 'c', call_result: 'other' }, 201);
      await ok(admin, 'POST', '/meetings', { contact_id: person.id, text: 'm', meeting_time_int: 1_900_000_000 }, 201);
      await ok(admin, 'POST', '/actions', { contact_id: person.id, text: 'a', status: 'date', date: '2031-01-01' }, 201);
      await ok(admin, 'POST', `/contacts/${person.id}/deals`, { name: 'd' }, 201);
    }
    const companyId = a.company_id;
    for (const [resource, key] of [
      ['notes', 'note'],
      ['calls', 'call'],
      ['meetings', 'meeting'],
      ['actions', 'action'],
      ['deals', 'deal'],
    ]) {
      const page = await ok(member, 'GET', `/companies/${companyId}/${resource}`);
      expect([resource, page.total_count, page.page, page.per_page, page.max_page]).toEqual([resource, 2, 1, 10, 1]);
      expect([resource, page[resource].map((e: Json) => e[key].contact_id).sort()]).toEqual([resource, [a.id, b.id].sort()]);
      const one = await ok(member, 'GET', `/companies/${companyId}/${resource}.json?per_page=1&page=2`);
      expect(one[resource]).toHaveLength(1);
      await expectError(stranger, 'GET', `/companies/${companyId}/${resource}`, undefined, 404, 'resource_not_found');
      await expectError(member, 'GET', `/companies/${companyId}/${resource}?per_page=0`, undefined, 400, 'invalid_request_data');
    }
  });

  it("answers calls' and meetings' index: the 1-based place in the result set, as OnePageCRM documents it", async () => {
    const person = await contact(admin, { first_name: 'Ida', last_name: `Indexed ${Date.now()}` });
    for (const n of [1, 2, 3]) {
      const made = await ok(admin, 'POST', '/calls', { contact_id: person.id, text: `c${n}`, call_result: 'other' }, 201);
      expect(made.call.index).toBe(1);
      await ok(admin, 'POST', '/meetings', { contact_id: person.id, text: `m${n}`, meeting_time_int: 1_900_000_000 + n }, 201);
    }
    for (const [resource, key] of [
      ['calls', 'call'],
      ['meetings', 'meeting'],
    ]) {
      const all = (await ok(member, 'GET', `/${resource}?contact_id=${person.id}`))[resource].map((e: Json) => e[key]);
      expect([resource, all.map((r: Json) => r.index)]).toEqual([resource, [1, 2, 3]]);
      const page2 = (await ok(member, 'GET', `/${resource}?contact_id=${person.id}&per_page=2&page=2`))[resource].map((e: Json) => e[key]);
      expect([resource, page2.map((r: Json) => [r.id, r.index])]).toEqual([resource, [[all[2].id, 3]]]);
      expect((await ok(member, 'GET', `/${resource}/${all[1].id}`))[key].index).toBe(1);
    }
    // In a contact's fields= arrays: the place in that array.
    const listed = await ok(admin, 'GET', `/contacts?fields=calls(all),meetings(all)&search=${encodeURIComponent(person.last_name)}`);
    expect(listed.contacts[0].calls.map((e: Json) => e.call.index)).toEqual([1, 2, 3]);
    expect(listed.contacts[0].meetings.map((e: Json) => e.meeting.index)).toEqual([1, 2, 3]);
  });

  it('links contacts of other companies to a company, lists them with linked_with, and unlinks them', async () => {
    const own = await contact(admin, { last_name: 'Own', company_name: 'Hub Ltd' });
    const guest = await contact(admin, { last_name: 'Guest', company_name: 'Guest Ltd' });
    const loner = await contact(admin, { last_name: 'Loner' });
    const hub = own.company_id;

    const { linked_contact: linked } = await ok(admin, 'POST', `/companies/${hub}/linked_contacts`, { contact_id: guest.id }, 201);
    expect(linked.contact.id).toBe(guest.id);
    expect(linked.linked_with).toEqual([hub]);
    expect(Object.keys(linked).sort()).toEqual([
      'company',
      'contact',
      'linked_with',
      'next_action',
      'next_action_conflicts',
      'next_actions',
      'queued_actions',
    ]);
    // Linking again answers the same link.
    expect(
      (await ok(admin, 'POST', `/companies/${hub}/linked_contacts`, { contact_id: guest.id }, 201)).linked_contact.linked_with,
    ).toEqual([hub]);
    await ok(member, 'POST', `/companies/${hub}/linked_contacts`, { contact_id: loner.id }, 201);
    // A second company the guest is linked with shows in linked_with.
    const other = await contact(admin, { last_name: 'Other', company_name: 'Another Ltd' });
    await ok(admin, 'POST', `/companies/${other.company_id}/linked_contacts`, { contact_id: guest.id }, 201);

    const list = await ok(member, 'GET', `/companies/${hub}/linked_contacts`);
    expect(list).toMatchObject({ total_count: 2, page: 1, per_page: 10, max_page: 1 });
    expect(list.linked_contacts.map((e: Json) => e.linked_contact.contact.id)).toEqual([guest.id, loner.id]);
    expect(list.linked_contacts[0].linked_contact.linked_with.sort()).toEqual([hub, other.company_id].sort());
    expect((await ok(member, 'GET', `/companies/${hub}/linked_contacts?per_page=1&page=2`)).linked_contacts).toHaveLength(1);

    await expectError(admin, 'POST', `/companies/${hub}/linked_contacts`, { contact_id: own.id }, 400, 'invalid_request_data');
    const missing = await expectError(admin, 'POST', `/companies/${hub}/linked_contacts`, {}, 400, 'invalid_request_data');
    expect(Object.keys(missing.errors)).toEqual(['contact_id']);
    await expectError(stranger, 'POST', `/companies/${hub}/linked_contacts`, { contact_id: guest.id }, 404, 'resource_not_found');
    const foreign = await contact(stranger);
    await expectError(admin, 'POST', `/companies/${hub}/linked_contacts`, { contact_id: foreign.id }, 404, 'resource_not_found');
    await expectError(stranger, 'GET', `/companies/${hub}/linked_contacts`, undefined, 404, 'resource_not_found');

    expect(await ok(admin, 'DELETE', `/companies/${hub}/linked_contacts/${guest.id}`)).toEqual({});
    await expectError(admin, 'DELETE', `/companies/${hub}/linked_contacts/${guest.id}`, undefined, 404, 'resource_not_found');
    await expectError(stranger, 'DELETE', `/companies/${hub}/linked_contacts/${loner.id}`, undefined, 404, 'resource_not_found');
    expect(
      (await ok(member, 'GET', `/companies/${hub}/linked_contacts`)).linked_contacts.map((e: Json) => e.linked_contact.contact.id),
    ).toEqual([loner.id]);
  });

  it('synced_status: POST makes every contact take the status (and joiners too); DELETE stops syncing', async () => {
    const { status } = await ok(admin, 'POST', '/statuses', { text: `Synced ${Date.now() % 1e6}` }, 201);
    const a = await contact(admin, { last_name: 'One', company_name: 'Sync Co' });
    const b = await contact(member, { last_name: 'Two', company_name: 'Sync Co' });
    const { company } = await ok(member, 'POST', `/companies/${a.company_id}/synced_status`, { status_id: status.id }, 201);
    expect(company).toMatchObject({ id: a.company_id, syncing_status: true, synced_status_id: status.id });
    for (const person of [a, b]) expect((await ok(admin, 'GET', `/contacts/${person.id}`)).contact.status_id).toBe(status.id);
    const joiner = await contact(admin, { last_name: 'Three', company_name: 'sync co' });
    expect(joiner.status_id).toBe(status.id);

    await expectError(member, 'POST', `/companies/${a.company_id}/synced_status`, {}, 400, 'invalid_request_data');
    await expectError(
      member,
      'POST',
      `/companies/${a.company_id}/synced_status`,
      { status_id: '0123456789abcdef01234567' },
      404,
      'resource_not_found',
    );
    await expectError(stranger, 'POST', `/companies/${a.company_id}/synced_status`, { status_id: status.id }, 404, 'resource_not_found');

    const off = (await ok(member, 'DELETE', `/companies/${a.company_id}/synced_status`)).company;
    expect(off).toMatchObject({ syncing_status: false, synced_status_id: '' });
    expect((await ok(admin, 'GET', `/contacts/${a.id}`)).contact.status_id).toBe(status.id);
    const later = await contact(admin, { last_name: 'Four', company_name: 'Sync Co' });
    expect(later.status_id).not.toBe(status.id);
    await expectError(stranger, 'DELETE', `/companies/${a.company_id}/synced_status`, undefined, 404, 'resource_not_found');
  });

  it('GET and PUT one relationship, as seen from either contact', async () => {
    const { relationship_type: type } = await ok(
      admin,
      'POST',
      '/relationship_types',
      { variants: [{ name: `Boss ${Date.now()}` }, { name: `Staff ${Date.now()}` }] },
      201,
    );
    const { relationship_type: peers } = await ok(
      admin,
      'POST',
      '/relationship_types',
      { variants: [{ name: `Peer ${Date.now()}` }] },
      201,
    );
    const [boss, staff] = type.relationship_variants;
    const ann = await contact(admin, { last_name: 'Ann' });
    const bob = await contact(admin, { last_name: 'Bob' });
    const cat = await contact(admin, { last_name: 'Cat' });
    const { relationship } = await ok(
      admin,
      'POST',
      `/contacts/${ann.id}/relationships`,
      { relationship_type_id: type.id, related_contact_id: bob.id, variant_id: staff.id },
      201,
    );

    expect((await ok(member, 'GET', `/contacts/${ann.id}/relationships/${relationship.id}`)).relationship).toEqual(relationship);
    const fromBob = (await ok(member, 'GET', `/contacts/${bob.id}/relationships/${relationship.id}.json`)).relationship;
    expect(fromBob).toMatchObject({ contact_id: bob.id, related_contact_id: ann.id, variant_id: boss.id, label: boss.name });
    // OnePageCRM's related_contacts: both ends, the viewing contact first, each with its own label.
    const end = (person: Json, variant: Json) => ({
      variant_id: variant.id,
      variant_name: variant.name,
      contact_id: person.id,
      first_name: person.first_name,
      last_name: person.last_name,
      photo_url: person.photo_url,
      company_id: person.company_id,
      company_name: person.company_name,
      owner_id: person.owner_id,
    });
    expect(relationship.related_contacts).toEqual([end(ann, boss), end(bob, staff)]);
    expect(fromBob.related_contacts).toEqual([end(bob, staff), end(ann, boss)]);
    expect(relationship.modified_at).toBe(relationship.created_at);
    await expectError(member, 'GET', `/contacts/${cat.id}/relationships/${relationship.id}`, undefined, 404, 'resource_not_found');
    await expectError(stranger, 'GET', `/contacts/${ann.id}/relationships/${relationship.id}`, undefined, 404, 'resource_not_found');

    const put = (
      await ok(member, 'PUT', `/contacts/${bob.id}/relationships/${relationship.id}`, {
        relationship_type_id: peers.id,
        related_contact_id: cat.id,
      })
    ).relationship;
    expect(put).toMatchObject({
      id: relationship.id,
      relationship_type_id: peers.id,
      contact_id: bob.id,
      related_contact_id: cat.id,
      symmetrical: true,
    });
    expect(put.created_at).toBe(relationship.created_at);
    expect(Date.parse(put.modified_at)).toBeGreaterThan(Date.parse(relationship.modified_at));
    expect(put.related_contacts.map((e: Json) => [e.contact_id, e.variant_id])).toEqual([
      [bob.id, peers.relationship_variants[0].id],
      [cat.id, peers.relationship_variants[0].id],
    ]);
    await expectError(member, 'GET', `/contacts/${ann.id}/relationships/${relationship.id}`, undefined, 404, 'resource_not_found');
    // The same body again is no duplicate of itself.
    expect(
      (
        await ok(member, 'PUT', `/contacts/${bob.id}/relationships/${relationship.id}`, {
          relationship_type_id: peers.id,
          related_contact_id: cat.id,
        })
      ).relationship,
    ).toEqual(put);

    const second = (
      await ok(admin, 'POST', `/contacts/${ann.id}/relationships`, { relationship_type_id: peers.id, related_contact_id: bob.id }, 201)
    ).relationship;
    await expectError(
      admin,
      'PUT',
      `/contacts/${ann.id}/relationships/${second.id}`,
      { relationship_type_id: peers.id, related_contact_id: ann.id },
      400,
      'invalid_request_data',
    );
    await expectError(
      admin,
      'PUT',
      `/contacts/${bob.id}/relationships/${second.id}`,
      { relationship_type_id: peers.id, related_contact_id: cat.id },
      400,
      'duplicated_entity',
    );
    await expectError(
      admin,
      'PUT',
      `/contacts/${ann.id}/relationships/${second.id}`,
      { related_contact_id: cat.id },
      400,
      'invalid_request_data',
    );
    await expectError(
      admin,
      'PUT',
      `/contacts/${ann.id}/relationships/${second.id}`,
      { relationship_type_id: type.id, related_contact_id: cat.id },
      400,
      'invalid_request_data',
    );
    await expectError(
      stranger,
      'PUT',
      `/contacts/${ann.id}/relationships/${second.id}`,
      { relationship_type_id: peers.id, related_contact_id: cat.id },
      404,
      'resource_not_found',
    );
  });
});
