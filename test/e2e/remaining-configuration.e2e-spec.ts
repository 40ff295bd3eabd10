import { recordCalls, type Json } from './record-helpers';
import { setupE2e } from './setup';

const ITEM_KEYS = ['cost', 'created_at', 'description', 'id', 'item_group_id', 'modified_at', 'name', 'position', 'price'];

/**
 * The rest of OnePageCRM's configuration and action operations (issue 13, item 1; decisions.md
 * "Remaining OnePageCRM operations"), over HTTP.
 */
describe('remaining configuration and action operations (e2e)', () => {
  const { services, admin, stranger, member } = setupE2e({ stranger: { name: 'Stranger Ltd' }, member: true });
  const { call, ok, contact } = recordCalls(() => services);

  const expectError = async (who: typeof admin, method: string, path: string, body: unknown, status: number, errorName: string) => {
    const res = await call(who)<Json>(method, path, body);
    expect([method, path, res.status, res.body.error_name]).toEqual([method, path, status, errorName]);
    expect(Object.keys(res.body).sort()).toEqual(['error_message', 'error_name', 'errors', 'message', 'status']);
    return res.body;
  };

  describe('PUT /users/{id}', () => {
    it("changes one's own profile; partial=true keeps what is not sent; bcc_email=true renews the BCC address", async () => {
      const before = (await ok(member, 'GET', `/users/${member.user.id}`)).user;
      const put = (await ok(member, 'PUT', `/users/${member.user.id}`, { first_name: 'Mia', last_name: 'Moss', company_name: 'Moss & Co' }))
        .user;
      expect(put).toMatchObject({
        id: member.user.id,
        first_name: 'Mia',
        last_name: 'Moss',
        company_name: 'Moss & Co',
        email: before.email,
      });
      expect(put.bcc_email).toBe(before.bcc_email);
      const partial = (await ok(member, 'PUT', `/users/${member.user.id}?partial=true`, { last_name: 'Marsh', bcc_email: true })).user;
      expect(partial).toMatchObject({ first_name: 'Mia', last_name: 'Marsh', company_name: 'Moss & Co' });
      expect(partial.bcc_email).not.toBe(before.bcc_email);
      expect(partial.bcc_email).toMatch(/@/);
      // PUT replaces: an absent company_name is cleared.
      expect((await ok(member, 'PUT', `/users/${member.user.id}`, { first_name: 'Mia', last_name: 'Marsh' })).user.company_name).toBe('');
      expect((await ok(admin, 'GET', `/users/${member.user.id}`)).user).toMatchObject({ first_name: 'Mia', last_name: 'Marsh' });
    });

    it("an admin changes another user's names but not their BCC address; a plain user is 403 before validation", async () => {
      const got = (await ok(admin, 'PUT', `/users/${member.user.id}?partial=true`, { first_name: 'Max' })).user;
      expect(got).toMatchObject({ id: member.user.id, first_name: 'Max' });
      expect(got.bcc_email).toBeUndefined();
      await expectError(
        admin,
        'PUT',
        `/users/${member.user.id}`,
        { first_name: 'Max', last_name: 'M', bcc_email: true },
        400,
        'invalid_request_data',
      );
      // Authorization first: the body is invalid too, and the answer is still 403.
      await expectError(member, 'PUT', `/users/${admin.user.id}`, { first_name: '' }, 403, 'no_permission_to_complete_action');
      const bad = await expectError(
        member,
        'PUT',
        `/users/${member.user.id}`,
        { first_name: '', last_name: 'x' },
        400,
        'invalid_request_data',
      );
      expect(Object.keys(bad.errors)).toEqual(['first_name']);
      await expectError(admin, 'PUT', `/users/${stranger.user.id}`, { first_name: 'S', last_name: 'T' }, 404, 'resource_not_found');
    });
  });

  describe('PUT /predefined_actions/{id} and /predefined_action_groups/{id}', () => {
    it('replaces a template (defaults for what is absent), or merges with partial=true; admin only; 404 elsewhere', async () => {
      const { predefined_action: made } = await ok(
        admin,
        'POST',
        '/predefined_actions',
        { text: 'Call', status: 'date_time', days_after: 2, time: '09:30' },
        201,
      );
      const partial = (await ok(admin, 'PUT', `/predefined_actions/${made.id}?partial=true`, { text: 'Call back' })).predefined_action;
      expect(partial).toMatchObject({ id: made.id, text: 'Call back', status: 'date_time', days_after: 2, time: '09:30' });
      const put = (await ok(admin, 'PUT', `/predefined_actions/${made.id}`, { text: 'Email' })).predefined_action;
      expect(put).toMatchObject({ text: 'Email', status: 'date', days_after: 0, time: null });
      await expectError(admin, 'PUT', `/predefined_actions/${made.id}`, { text: 'x', status: 'date_time' }, 400, 'invalid_request_data');
      await expectError(admin, 'PUT', `/predefined_actions/${made.id}`, {}, 400, 'invalid_request_data');
      await expectError(member, 'PUT', `/predefined_actions/${made.id}`, {}, 403, 'no_permission_to_complete_action');
      await expectError(stranger, 'PUT', `/predefined_actions/${made.id}`, { text: 'x' }, 404, 'resource_not_found');
    });

    it('renames a group and replaces its members: those left out are ungrouped, grouped elsewhere is 400', async () => {
      const make = async (text: string) => (await ok(admin, 'POST', '/predefined_actions', { text }, 201)).predefined_action.id as string;
      const [a, b, c, d, e] = await Promise.all(['A', 'B', 'C', 'D', 'E'].map(make));
      const { predefined_action_group: group } = await ok(
        admin,
        'POST',
        '/predefined_action_groups',
        { name: 'Follow-up', predefined_action_ids: [a, b] },
        201,
      );
      await ok(admin, 'POST', '/predefined_action_groups', { name: 'Other', predefined_action_ids: [d, e] }, 201);

      const put = (await ok(admin, 'PUT', `/predefined_action_groups/${group.id}`, { name: 'Renewal', predefined_action_ids: [c, a] }))
        .predefined_action_group;
      expect(put).toMatchObject({ id: group.id, name: 'Renewal', predefined_action_ids: [c, a] });
      expect((await ok(admin, 'GET', `/predefined_actions/${b}`)).predefined_action.predefined_action_group_id).toBeNull();
      expect((await ok(admin, 'GET', `/predefined_actions/${c}`)).predefined_action.predefined_action_group_id).toBe(group.id);

      const renamed = (await ok(admin, 'PUT', `/predefined_action_groups/${group.id}?partial=true`, { name: 'Renewals' }))
        .predefined_action_group;
      expect(renamed).toMatchObject({ name: 'Renewals', predefined_action_ids: [c, a] });
      await expectError(
        admin,
        'PUT',
        `/predefined_action_groups/${group.id}`,
        { name: 'X', predefined_action_ids: [a, d] },
        400,
        'invalid_request_data',
      );
      await expectError(
        admin,
        'PUT',
        `/predefined_action_groups/${group.id}`,
        { name: 'Other', predefined_action_ids: [a, c] },
        400,
        'duplicated_entity',
      );
      await expectError(
        admin,
        'PUT',
        `/predefined_action_groups/${group.id}`,
        { name: 'X', predefined_action_ids: [a] },
        400,
        'invalid_request_data',
      );
      await expectError(member, 'PUT', `/predefined_action_groups/${group.id}`, { name: '' }, 403, 'no_permission_to_complete_action');
      await expectError(
        stranger,
        'PUT',
        `/predefined_action_groups/${group.id}`,
        { name: 'X', predefined_action_ids: [a, c] },
        404,
        'resource_not_found',
      );
    });
  });

  describe('predefined items and groups', () => {
    it('creates, reads, lists (search, paging), replaces and deletes items; names are unique; admin only', async () => {
      const { predefined_item: panel } = await ok(
        admin,
        'POST',
        '/predefined_items',
        { name: 'Solar panel', description: '2019 model', cost: 100, price: 150.5 },
        201,
      );
      expect(Object.keys(panel).sort()).toEqual(ITEM_KEYS);
      expect(panel).toMatchObject({ name: 'Solar panel', description: '2019 model', cost: 100, price: 150.5, item_group_id: '' });
      const { predefined_item: battery } = await ok(admin, 'POST', '/predefined_items', { name: 'Battery' }, 201);
      expect(battery).toMatchObject({ description: '', cost: 0, price: 0, position: panel.position + 1 });

      expect((await ok(member, 'GET', `/predefined_items/${panel.id}`)).predefined_item).toEqual(panel);
      const list = await ok(member, 'GET', '/predefined_items?per_page=1&page=2');
      expect(list).toMatchObject({ total_count: 2, page: 2, per_page: 1, max_page: 2 });
      expect(list.predefined_items.map((e: Json) => e.predefined_item.id)).toEqual([battery.id]);
      expect((await ok(member, 'GET', '/predefined_items?search=SOLAR')).predefined_items.map((e: Json) => e.predefined_item.id)).toEqual([
        panel.id,
      ]);

      const partial = (await ok(admin, 'PUT', `/predefined_items/${panel.id}?partial=true`, { price: 175 })).predefined_item;
      expect(partial).toMatchObject({ name: 'Solar panel', description: '2019 model', cost: 100, price: 175 });
      const put = (await ok(admin, 'PUT', `/predefined_items/${panel.id}`, { name: 'Solar panel XL' })).predefined_item;
      expect(put).toMatchObject({ name: 'Solar panel XL', description: '', cost: 0, price: 0, position: panel.position });

      await expectError(admin, 'POST', '/predefined_items', { name: 'battery' }, 400, 'duplicated_entity');
      await expectError(admin, 'PUT', `/predefined_items/${battery.id}`, { name: 'SOLAR PANEL XL' }, 400, 'duplicated_entity');
      const bad = await expectError(admin, 'POST', '/predefined_items', { name: 'Cable', cost: -1 }, 400, 'invalid_request_data');
      expect(Object.keys(bad.errors)).toEqual(['cost']);
      await expectError(admin, 'POST', '/predefined_items', {}, 400, 'invalid_request_data');
      await expectError(member, 'POST', '/predefined_items', {}, 403, 'no_permission_to_complete_action');
      await expectError(member, 'DELETE', `/predefined_items/${battery.id}`, undefined, 403, 'no_permission_to_complete_action');
      for (const [method, body] of [['GET'], ['PUT', { name: 'x' }], ['DELETE']] as const)
        await expectError(stranger, method, `/predefined_items/${panel.id}`, body, 404, 'resource_not_found');

      expect(await ok(admin, 'DELETE', `/predefined_items/${battery.id}`)).toEqual({});
      await expectError(admin, 'GET', `/predefined_items/${battery.id}`, undefined, 404, 'resource_not_found');
    });

    it('groups bundle ungrouped items in order with their sums; deleting a group keeps its items', async () => {
      const make = async (name: string, cost: number, price: number) =>
        (await ok(admin, 'POST', '/predefined_items', { name, cost, price }, 201)).predefined_item as Json;
      const [a, b, c] = [await make('Inverter', 10, 20), await make('Mount', 1.5, 2.25), await make('Meter', 3, 4)];
      const { predefined_item_group: group } = await ok(
        admin,
        'POST',
        '/predefined_item_groups',
        { name: 'Kit', item_ids: [b.id, a.id] },
        201,
      );
      expect(group).toMatchObject({ name: 'Kit', count: 2, item_ids: [b.id, a.id], cost: 11.5, price: 22.25 });
      expect(group.predefined_items.map((e: Json) => e.predefined_item.id)).toEqual([b.id, a.id]);
      expect((await ok(member, 'GET', `/predefined_items/${a.id}`)).predefined_item.item_group_id).toBe(group.id);
      // OnePageCRM's body name for the members.
      const { predefined_item_group: other } = await ok(
        admin,
        'POST',
        '/predefined_item_groups',
        { name: 'Metering', deal_items: [c.id] },
        201,
      );
      expect(other.item_ids).toEqual([c.id]);

      const plain = await ok(member, 'GET', '/predefined_item_groups');
      expect(plain.total_count).toBe(2);
      expect(plain.predefined_item_groups[0].predefined_item_group.predefined_items).toBeUndefined();
      const withItems = await ok(member, 'GET', '/predefined_item_groups?include_items=true');
      expect(withItems.predefined_item_groups.map((e: Json) => e.predefined_item_group.predefined_items.length)).toEqual([2, 1]);
      expect((await ok(member, 'GET', `/predefined_item_groups/${group.id}`)).predefined_item_group).toEqual(group);

      await expectError(admin, 'POST', '/predefined_item_groups', { name: 'Again', item_ids: [a.id] }, 400, 'invalid_request_data');
      await expectError(admin, 'POST', '/predefined_item_groups', { name: 'kit', item_ids: [] }, 400, 'duplicated_entity');
      await expectError(
        admin,
        'POST',
        '/predefined_item_groups',
        { name: 'Ghost', item_ids: ['0123456789abcdef01234567'] },
        404,
        'resource_not_found',
      );
      await expectError(admin, 'POST', '/predefined_item_groups', { name: 'Bad', item_ids: 'x' }, 400, 'invalid_request_data');
      await expectError(member, 'POST', '/predefined_item_groups', { name: 'Kit 2' }, 403, 'no_permission_to_complete_action');
      await expectError(stranger, 'GET', `/predefined_item_groups/${group.id}`, undefined, 404, 'resource_not_found');
      await expectError(stranger, 'DELETE', `/predefined_item_groups/${group.id}`, undefined, 404, 'resource_not_found');

      expect(await ok(admin, 'DELETE', `/predefined_item_groups/${group.id}`)).toEqual({});
      expect((await ok(member, 'GET', `/predefined_items/${a.id}`)).predefined_item.item_group_id).toBe('');
      await expectError(admin, 'GET', `/predefined_item_groups/${group.id}`, undefined, 404, 'resource_not_found');
    });
  });

  it('GET /countries: all 249 ISO 3166-1 countries by code, with names and phone prefixes', async () => {
    const { countries } = await ok(member, 'GET', '/countries');
    expect(countries).toHaveLength(249);
    expect(countries.find((e: Json) => e.country.code === 'IE')).toEqual({
      country: { name: 'Ireland', code: 'IE', phone_prefix: '+353' },
    });
    expect(countries[0].country.code).toBe('AD');
    expect((await call(member)<Json>('GET', '/countries?page=2')).status).toBe(400);
  });

  describe('actions: unassign, promote, revert_promotion', () => {
    it("unassign gives another user's action to the caller; the caller's own stays; another account's is 404", async () => {
      const person = await contact(admin);
      const { action } = await ok(
        admin,
        'POST',
        '/actions',
        { contact_id: person.id, assignee_id: member.user.id, text: 'Visit', status: 'date', date: '2031-01-01' },
        201,
      );
      const moved = (await ok(admin, 'PUT', `/actions/${action.id}/unassign`)).action;
      expect(moved).toMatchObject({ id: action.id, assignee_id: admin.user.id, status: 'date', date: '2031-01-01' });
      const wrapper = await ok(admin, 'GET', `/contacts/${person.id}`);
      expect(wrapper.next_action.id).toBe(action.id);
      expect((await ok(admin, 'PUT', `/actions/${action.id}/unassign`)).action).toEqual(moved);
      await expectError(stranger, 'PUT', `/actions/${action.id}/unassign`, undefined, 404, 'resource_not_found');
      await expectError(admin, 'PUT', '/actions/nope/unassign', undefined, 404, 'resource_not_found');
    });

    it('promote makes a queued action the next action when there is none (else 409: swap); revert_promotion changes nothing', async () => {
      const person = await contact(admin);
      const { action: queued } = await ok(
        admin,
        'POST',
        '/actions',
        { contact_id: person.id, text: 'Later', status: 'queued_with_date', date: '2031-02-01' },
        201,
      );
      expect((await ok(admin, 'GET', `/contacts/${person.id}`)).next_action).toBeNull();
      await expectError(member, 'PUT', `/actions/${queued.id}/promote`, undefined, 403, 'no_permission_to_complete_action');
      const promoted = (await ok(admin, 'PUT', `/actions/${queued.id}/promote`)).action;
      expect(promoted).toMatchObject({ id: queued.id, status: 'date', date: '2031-02-01' });
      expect((await ok(admin, 'GET', `/contacts/${person.id}`)).next_action.id).toBe(queued.id);
      expect((await ok(admin, 'PUT', `/actions/${queued.id}/promote`)).action).toEqual(promoted);

      const { action: second } = await ok(
        admin,
        'POST',
        '/actions',
        { contact_id: person.id, text: 'Then', status: 'queued_with_date', date: '2031-03-01' },
        201,
      );
      await expectError(admin, 'PUT', `/actions/${second.id}/promote`, undefined, 409, 'conflict');
      await ok(admin, 'PUT', `/actions/${second.id}/mark_as_done`);
      await expectError(admin, 'PUT', `/actions/${second.id}/promote`, undefined, 409, 'conflict');

      const reverted = (await ok(admin, 'PUT', `/actions/${queued.id}/revert_promotion`)).action;
      expect(reverted).toEqual((await ok(admin, 'GET', `/actions/${queued.id}`)).action);
      for (const op of ['promote', 'revert_promotion'])
        await expectError(stranger, 'PUT', `/actions/${queued.id}/${op}`, undefined, 404, 'resource_not_found');
    });
  });
});
