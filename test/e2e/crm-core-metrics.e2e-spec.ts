import { Subjects } from '@crm/contracts';
import { setupE2e, calls } from './setup';
import { metric, until } from './webhook-helpers';

/**
 * crm-core's metrics on its METRICS_PORT after real traffic (decisions.md "Tracing and metrics"):
 * per-subject RED of the NATS requests it handles, its PostgreSQL pool, the outbox backlog and the
 * relay lag. Labels come from the contracts (subjects, error names), never from input.
 */
describe('crm-core metrics (e2e)', () => {
  const { services, admin } = setupE2e();
  const { call, ok } = calls(services);
  const crmCore = () => services.processes.find((p) => p.app === 'crm-core')!.metricsPort;
  const create = `subject="${Subjects.ContactsCreate}"`;
  const get = `subject="${Subjects.ContactsGet}"`;

  it('counts requests by subject and outcome, errors by name, and their durations', async () => {
    await ok(admin, 'POST', '/contacts', { first_name: 'Metric', last_name: 'One' }, 201);
    await ok(admin, 'POST', '/contacts', { first_name: 'Metric', last_name: 'Two' }, 201);
    expect((await call(admin)('GET', '/contacts/aaaaaaaaaaaaaaaaaaaaaaaa')).status).toBe(404);

    expect(await metric(crmCore(), 'nats_server_requests_total', `${create},outcome="ok"`)).toBeGreaterThanOrEqual(2);
    expect(await metric(crmCore(), 'nats_server_requests_total', `${get},outcome="client_error"`)).toBeGreaterThanOrEqual(1);
    expect(await metric(crmCore(), 'nats_server_request_errors_total', `${get},error_name="resource_not_found"`)).toBeGreaterThanOrEqual(1);
    expect(await metric(crmCore(), 'nats_server_request_duration_seconds_count', create)).toBeGreaterThanOrEqual(2);
    expect(await metric(crmCore(), 'nats_server_request_duration_seconds_sum', create)).toBeGreaterThan(0);
    // No server errors were made, and the label values are the contracts' subjects only.
    const text = await (await fetch(`http://127.0.0.1:${crmCore()}/metrics`)).text();
    const subjects = new Set([...text.matchAll(/^nats_server_requests_total\{subject="([^"]+)"/gm)].map((m) => m[1]));
    const known = new Set<string>(Object.values(Subjects));
    expect([...subjects].filter((s) => !known.has(s))).toEqual([]);
  });

  it('reports the PostgreSQL pool: open, idle, maximum and waiting', async () => {
    const pool = 'pool="crm"';
    expect(await metric(crmCore(), 'pg_pool_connections', pool)).toBeGreaterThanOrEqual(1);
    expect(await metric(crmCore(), 'pg_pool_idle_connections', pool)).not.toBeNull();
    expect(await metric(crmCore(), 'pg_pool_max_connections', pool)).toBe(10);
    expect(await metric(crmCore(), 'pg_pool_waiting_clients', pool)).toBe(0);
  });

  it('reports the outbox backlog, the oldest pending age and the relay lag', async () => {
    await ok(admin, 'POST', '/contacts', { first_name: 'Metric', last_name: 'Three' }, 201);
    const lagCount = await until('the relay lag histogram counts the published events', async () => {
      const n = await metric(crmCore(), 'crm_outbox_relay_lag_seconds_count');
      return n !== null && n >= 3 ? n : null;
    });
    expect(lagCount).toBeGreaterThanOrEqual(3);
    expect(await metric(crmCore(), 'crm_outbox_events_published_total')).toBeGreaterThanOrEqual(3);
    await until('the backlog is empty', async () => (await metric(crmCore(), 'crm_outbox_pending_events')) === 0);
    expect(await metric(crmCore(), 'crm_outbox_oldest_pending_age_seconds')).toBe(0);
    expect(await metric(crmCore(), 'crm_outbox_parked_events')).toBe(0);
  });
});
