import { api, type CreatedAccount } from '@crm/testing';
import { setupE2e } from './setup';

type ActionBody = {
  data: {
    predefined_action: {
      id: string;
      text: string;
      status: string;
      days_after: number;
      days: number;
      time: string | null;
      predefined_action_group_id: string | null;
    };
  };
};
type Group = { id: string; name: string; text: string; position: number; predefined_action_ids: string[]; action_ids: string[] };
type GroupBody = { data: { predefined_action_group: Group } };

/** Predefined actions and groups over HTTP (decisions.md "Configuration and users"). */
describe('predefined actions and groups (e2e)', () => {
  const { services, admin, stranger, member } = setupE2e({ stranger: true, member: true });

  const call = (who: CreatedAccount) => api(services, who);
  const template = async (text: string, extra: Record<string, unknown> = {}) => {
    const res = await call(admin)<ActionBody>('POST', '/predefined_actions', { text, ...extra });
    expect(res.status).toBe(201);
    return res.body.data.predefined_action;
  };

  it('creates templates with defaults and validates status, time and days', async () => {
    const plain = await template('Call back');
    expect(plain).toMatchObject({ text: 'Call back', status: 'date', days_after: 0, time: null, predefined_action_group_id: null });
    expect(await template('Demo', { status: 'date_time', days_after: 3, time: '14:30' })).toMatchObject({
      status: 'date_time',
      days_after: 3,
      time: '14:30',
    });
    const got = await call(member)<ActionBody>('GET', `/predefined_actions/${plain.id}.json`);
    expect(got.body.data.predefined_action).toEqual(plain);
    for (const [body, field] of [
      [{ text: '' }, 'text'],
      [{ text: 'x', status: 'done' }, 'status'],
      [{ text: 'x', status: 'date_time' }, 'time'],
      [{ text: 'x', time: '10:00' }, 'time'],
      [{ text: 'x', time: '25:00', status: 'date_time' }, 'time'],
      [{ text: 'x', days_after: -1 }, 'days_after'],
      [{ text: 'x', status: 'waiting', days_after: 2 }, 'days_after'],
    ] as const) {
      const res = await call(admin)('POST', '/predefined_actions', body);
      expect(res.status).toBe(400);
      expect(Object.keys((res.body as { errors: object }).errors)).toContain(field);
    }
  });

  it('groups at least two ungrouped templates and dissolves a group left with one', async () => {
    const [a, b, c] = [await template('Step 1'), await template('Step 2'), await template('Step 3')];
    expect((await call(admin)('POST', '/predefined_action_groups', { name: 'Too small', predefined_action_ids: [a.id] })).status).toBe(400);
    const created = await call(admin)<GroupBody>('POST', '/predefined_action_groups', {
      name: 'Onboarding',
      predefined_action_ids: [c.id, a.id],
    });
    expect(created.status).toBe(201);
    const group = created.body.data.predefined_action_group;
    expect(group.predefined_action_ids).toEqual([c.id, a.id]);
    expect(
      (await call(member)<ActionBody>('GET', `/predefined_actions/${a.id}`)).body.data.predefined_action.predefined_action_group_id,
    ).toBe(group.id);

    expect((await call(admin)('POST', '/predefined_action_groups', { name: 'Second', predefined_action_ids: [a.id, b.id] })).status).toBe(
      400,
    );
    expect(
      (
        await call(admin)('POST', '/predefined_action_groups', {
          name: 'onboarding',
          predefined_action_ids: [b.id, (await template('Step 4')).id],
        })
      ).body,
    ).toMatchObject({ error_name: 'duplicated_entity' });

    // Deleting one of two members dissolves the group; the other stays, ungrouped.
    expect((await call(admin)('DELETE', `/predefined_actions/${c.id}`)).status).toBe(200);
    expect((await call(admin)('GET', `/predefined_action_groups/${group.id}`)).status).toBe(404);
    expect(
      (await call(admin)<ActionBody>('GET', `/predefined_actions/${a.id}`)).body.data.predefined_action.predefined_action_group_id,
    ).toBeNull();
  });

  it('keeps a group of three when one member goes, and deleting a group keeps its templates', async () => {
    const ids = [(await template('A')).id, (await template('B')).id, (await template('C')).id];
    const group = (await call(admin)<GroupBody>('POST', '/predefined_action_groups', { name: 'Three', predefined_action_ids: ids })).body
      .data.predefined_action_group;
    await call(admin)('DELETE', `/predefined_actions/${ids[1]}`);
    expect(
      (await call(admin)<GroupBody>('GET', `/predefined_action_groups/${group.id}`)).body.data.predefined_action_group
        .predefined_action_ids,
    ).toEqual([ids[0], ids[2]]);
    expect((await call(admin)('DELETE', `/predefined_action_groups/${group.id}`)).status).toBe(200);
    expect(
      (await call(admin)<ActionBody>('GET', `/predefined_actions/${ids[0]}`)).body.data.predefined_action.predefined_action_group_id,
    ).toBeNull();
    const list = await call(admin)<{ data: { predefined_action_groups: unknown[]; total_count: number } }>(
      'GET',
      '/predefined_action_groups',
    );
    expect(list.status).toBe(200);
    expect(list.body.data.total_count).toBe(list.body.data.predefined_action_groups.length);
  });

  it('keeps writes for admins and records inside their account', async () => {
    const mine = await template('Private');
    expect((await call(member)('POST', '/predefined_actions', { text: 'x' })).status).toBe(403);
    expect((await call(member)('DELETE', `/predefined_actions/${mine.id}`)).status).toBe(403);
    for (const [method, path] of [
      ['GET', `/predefined_actions/${mine.id}`],
      ['DELETE', `/predefined_actions/${mine.id}`],
    ] as const) {
      const res = await call(stranger)(method, path);
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ error_name: 'resource_not_found' });
    }
    const strangerTemplate = (await call(stranger)<ActionBody>('POST', '/predefined_actions', { text: 'theirs' })).body.data
      .predefined_action;
    expect(
      (await call(admin)('POST', '/predefined_action_groups', { name: 'Mixed', predefined_action_ids: [mine.id, strangerTemplate.id] }))
        .status,
    ).toBe(404);
    const strangerList = await call(stranger)<{ data: { predefined_actions: Array<{ predefined_action: { id: string } }> } }>(
      'GET',
      '/predefined_actions?per_page=100',
    );
    expect(strangerList.body.data.predefined_actions.map((p) => p.predefined_action.id)).toEqual([strangerTemplate.id]);
  });

  it("takes and answers OnePageCRM's field names: days, and a group's text and action_ids", async () => {
    const first = await template('Ring', { days: 4 });
    expect(first).toMatchObject({ days: 4, days_after: 4 });
    // days wins over days_after; PUT and partial PUT take it too.
    expect(await template('Both', { days: 2, days_after: 9 })).toMatchObject({ days: 2, days_after: 2 });
    const put = await call(admin)<ActionBody>('PUT', `/predefined_actions/${first.id}?partial=true`, { days: 6 });
    expect(put.body.data.predefined_action).toMatchObject({ text: 'Ring', days: 6, days_after: 6 });
    const bad = await call(admin)('POST', '/predefined_actions', { text: 'x', days: -1 });
    expect([bad.status, Object.keys((bad.body as { errors: object }).errors)]).toEqual([400, ['days']]);

    const second = await template('Mail');
    const made = await call(admin)<GroupBody>('POST', '/predefined_action_groups', { text: 'Outreach', action_ids: [second.id, first.id] });
    expect(made.status).toBe(201);
    const group = made.body.data.predefined_action_group;
    expect(group).toMatchObject({
      name: 'Outreach',
      text: 'Outreach',
      predefined_action_ids: [second.id, first.id],
      action_ids: [second.id, first.id],
    });
    const renamed = await call(admin)<GroupBody>('PUT', `/predefined_action_groups/${group.id}`, {
      text: 'Outreach 2',
      action_ids: [first.id, second.id],
    });
    expect(renamed.body.data.predefined_action_group).toMatchObject({ text: 'Outreach 2', action_ids: [first.id, second.id] });
    const missing = await call(admin)('POST', '/predefined_action_groups', { action_ids: [first.id, second.id] });
    expect([missing.status, Object.keys((missing.body as { errors: object }).errors)]).toEqual([400, ['name']]);
  });

  it("numbers groups with OnePageCRM's read-only position: appended, kept by updates, lists in that order", async () => {
    const templates = [await template('P1'), await template('P2'), await template('P3'), await template('P4')];
    const before = await call(admin)<{ data: { predefined_action_groups: Array<{ predefined_action_group: Group }> } }>(
      'GET',
      '/predefined_action_groups?per_page=100',
    );
    const existing = before.body.data.predefined_action_groups.map((g) => g.predefined_action_group.position);
    const next = existing.length === 0 ? 0 : Math.max(...existing) + 1;
    const made = async (name: string, ids: string[]) =>
      (await call(admin)<GroupBody>('POST', '/predefined_action_groups', { name, predefined_action_ids: ids })).body.data
        .predefined_action_group;
    const first = await made('Positioned 1', [templates[0].id, templates[1].id]);
    const second = await made('Positioned 2', [templates[2].id, templates[3].id]);
    expect([first.position, second.position]).toEqual([next, next + 1]);
    const renamed = await call(admin)<GroupBody>('PUT', `/predefined_action_groups/${first.id}`, {
      name: 'Positioned 1b',
      predefined_action_ids: [templates[1].id, templates[0].id],
    });
    expect(renamed.body.data.predefined_action_group).toMatchObject({ name: 'Positioned 1b', position: next });
    expect(
      (await call(member)<GroupBody>('GET', `/predefined_action_groups/${second.id}`)).body.data.predefined_action_group.position,
    ).toBe(next + 1);
    const list = await call(member)<{ data: { predefined_action_groups: Array<{ predefined_action_group: Group }> } }>(
      'GET',
      '/predefined_action_groups?per_page=100',
    );
    const positions = list.body.data.predefined_action_groups.map((g) => g.predefined_action_group.position);
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
    expect(list.body.data.predefined_action_groups.slice(-2).map((g) => g.predefined_action_group.id)).toEqual([first.id, second.id]);
  });
});
