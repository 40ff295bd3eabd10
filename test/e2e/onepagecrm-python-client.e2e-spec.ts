import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { CALL_RESULTS } from '@crm/contracts';
import { REPO_ROOT } from '@crm/testing';
import { setupE2e, type Json } from './setup';

/** Debian's python3 with its python3-requests (npm test installs the package as root). */
const PYTHON = process.env.ONEPAGECRM_PYTHON ?? '/usr/bin/python3';
const CLIENT_DIR = path.join(REPO_ROOT, 'test/clients/onepagecrm-python');

/**
 * OnePageCRM's own python client (test/clients/onepagecrm-python/onepagecrm, unchanged) against the
 * API, beyond connect and create (issue 13, item 7): drive.py goes through bootstrap's summary
 * blocks, users, statuses, tags, starring, a partial update, the action stream, the team stream,
 * delete and undo, a 404 and the client's object responses; then it switches the account to
 * OnePageCRM's list format through the operator API and iterates users, statuses, lead sources and
 * call results as the client reads them (bare arrays); it prints what it saw.
 */
describe("OnePageCRM's python client (e2e)", () => {
  const { services, admin } = setupE2e();
  let seen: Json;
  const tag = `py-${Date.now().toString(36)}`;

  beforeAll(() => {
    const probe = spawnSync(PYTHON, ['-c', 'import requests'], { encoding: 'utf8' });
    if (probe.status !== 0)
      throw new Error(
        `${PYTHON} cannot import requests (${probe.stderr || probe.error?.message}): run apt-get install -y python3-requests, or set ONEPAGECRM_PYTHON`,
      );
    const args = [`${services.gatewayUrl}/api/v3`, admin.user.id, admin.user.api_key, tag];
    const operator = [services.operatorUrl, services.operatorToken, admin.account.id];
    const run = spawnSync(PYTHON, ['drive.py', ...args, ...operator], {
      cwd: CLIENT_DIR,
      encoding: 'utf8',
      timeout: 120_000,
      env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1', NO_PROXY: '*' },
    });
    if (run.status !== 0) throw new Error(`drive.py exited ${run.status}: ${run.stderr}`);
    seen = JSON.parse(run.stdout);
  });

  it('connects: the client keeps the statuses, tags, team stream and contact counts of GET /bootstrap', () => {
    expect(seen.connect.statuses.length).toBeGreaterThan(0);
    for (const status of seen.connect.statuses) expect(status).toEqual({ id: expect.any(String), text: expect.any(String) });
    expect(seen.connect.tags).toEqual(expect.objectContaining({ tags: expect.any(Array), system_tags: expect.any(Array) }));
    expect(seen.connect.team_stream).toEqual(expect.objectContaining({ all: expect.any(Number), users: expect.any(Array) }));
    expect(seen.connect.contact_counts_all_total).toEqual([expect.any(Number)]);
  });

  it('reads users and statuses in the default paged format (entries nested under their entity key)', () => {
    expect(seen.users).toEqual({ type: 'dict', ids: [admin.user.id] });
    expect(seen.statuses.map((s: Json) => s.id).sort()).toEqual(seen.connect.statuses.map((s: Json) => s.id).sort());
  });

  it('creates a contact with a tag, and the tag is counted', () => {
    expect(seen.create_contact).toEqual({ id: expect.any(String), first_name: 'Ada', tags: [tag], starred: false });
    expect(seen.tags[tag]).toBe(1);
  });

  it('stars and unstars through the sub-resource route, and lists starred contacts', () => {
    expect(seen.star).toEqual({ starred: true, listed: true, unstarred: false });
    expect(seen.patch).toBe('CTO');
  });

  it('sees the contact in the action stream once it has a next action, and reads the team stream', () => {
    expect(seen.action_stream).toEqual({ action_status: 'date', contact_in_stream: true });
    expect(seen.team_stream).toEqual({ contact_in_stream: true, total_count: expect.any(Number) });
  });

  it('deletes a contact and undoes it with ?undo=true; an unknown contact raises RequestError 404', () => {
    expect(seen.delete_and_undo).toEqual({ after_delete: 404, after_undo: seen.create_contact.id });
    expect(seen.not_found).toEqual({ status: 404, has_message: true });
  });

  it("answers in the client's object mode (attribute access)", () => {
    expect(seen.object_responses).toEqual({ is_response_dict: true, id_attribute: true });
  });

  it("iterates users, statuses, lead sources and call results once the operator sets OnePageCRM's list format", () => {
    expect(seen.list_format).toEqual({ status: 200, list_format: 'onepagecrm' });
    expect(seen.onepagecrm_users).toEqual({ type: 'list', ids: [admin.user.id] });
    expect(seen.onepagecrm_statuses.type).toBe('list');
    expect(seen.onepagecrm_statuses.statuses).toMatchObject({ lead: 'Lead', customer: 'Customer' });
    expect(Object.keys(seen.onepagecrm_statuses.statuses)).toHaveLength(seen.statuses.length);
    expect(seen.onepagecrm_lead_sources).toEqual({ type: 'list', texts: expect.arrayContaining([`Python ${tag}`]), ids: true });
    expect(seen.onepagecrm_call_results).toEqual({
      type: 'list',
      ids: CALL_RESULTS.map((result) => result.id),
      results: CALL_RESULTS.map((result) => result.id),
      counted: true,
    });
  });
});
