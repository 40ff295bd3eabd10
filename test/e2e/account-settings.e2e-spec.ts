import { DEFAULT_ACCOUNT_SETTINGS } from '@crm/contracts';
import { calls, setupE2e, type Json } from './setup';

/**
 * Account settings (issue 13, item 4; docs/decisions.md "Account settings"): OnePageCRM's bootstrap
 * `account_type`, `settings` keys, `cost_setup` and `next_action_dates`, their defaults, and the
 * operator's PATCH /operator/accounts/{id}/settings that changes them, over HTTP.
 */
describe('account settings (e2e)', () => {
  const { services, admin, member, stranger } = setupE2e({ member: true, stranger: true });
  const { call, ok } = calls(services);

  const operator = async (accountId: string, body: unknown, token: string | null = services.operatorToken) => {
    const res = await fetch(`${services.operatorUrl}/operator/accounts/${accountId}/settings`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json', ...(token === null ? {} : { authorization: `Bearer ${token}` }) },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Json };
  };
  /** `'2 weeks'` -> `{ number: 2, period: 'weeks' }`. */
  const quick = (text: string) => ({ number: Number(text.split(' ')[0]), period: text.split(' ')[1] });
  const bootstrap = async (who: typeof admin) => ok(who, 'GET', '/bootstrap');

  it('answers the defaults for a new account', async () => {
    const data = await bootstrap(member);
    expect(data.account_type).toBe('pro');
    // OnePageCRM's documented defaults where it has one, its examples otherwise.
    expect(data.settings).toMatchObject({
      time_zone: 'UTC',
      date_format: '%d/%m/%Y',
      listing_size: 25,
      not_working_days: 'none',
      currency: 'USD',
      reminder: { type: 'new_task', hour: 6 },
      popular_countries: [],
      account_id: admin.account.id,
    });
    expect(data.settings).toMatchObject(DEFAULT_ACCOUNT_SETTINGS);
    expect(data.settings.deal_stages).toEqual([
      { stage: 10, label: 'Qualification' },
      { stage: 25, label: 'Needs analysis' },
      { stage: 50, label: 'Proposal' },
      { stage: 75, label: 'Negotiation' },
      { stage: 90, label: 'Verbal agreement' },
    ]);
    expect(data.settings.pipelines).toEqual(data.pipelines);
    expect(data.cost_setup).toEqual({ cost_enabled: false, cost_required: false, commission_base: 'amount', commission_percentage: 10 });
    expect(data.next_action_dates).toEqual(['1 days', '3 days', '1 weeks', '2 weeks', '1 months'].map(quick));
  });

  it('lets the operator change settings, type and cost setup, only the keys sent, in one account', async () => {
    const res = await operator(admin.account.id, {
      account_type: 'trial',
      settings: {
        time_zone: 'europe/dublin',
        date_format: '%Y-%m-%d',
        currency: 'EUR',
        currency_symbol: '€',
        separator: ',',
        delimiter: '.',
        reminder: { hour: 8 },
        time_with_ampm: true,
        listing_size: 50,
      },
      cost_setup: { cost_enabled: true, commission_base: 'margin', commission_percentage: 12.5 },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      account_id: admin.account.id,
      account_type: 'trial',
      settings: { time_zone: 'Europe/Dublin', reminder: { type: 'new_task', hour: 8 } },
    });

    const data = await bootstrap(member);
    expect(data.account_type).toBe('trial');
    expect(data.settings).toMatchObject({
      time_zone: 'Europe/Dublin',
      date_format: '%Y-%m-%d',
      currency: 'EUR',
      currency_symbol: '€',
      separator: ',',
      delimiter: '.',
      reminder: { type: 'new_task', hour: 8 },
      time_with_ampm: true,
      listing_size: 50,
      not_working_days: 'none',
    });
    expect(data.cost_setup).toEqual({ cost_enabled: true, cost_required: false, commission_base: 'margin', commission_percentage: 12.5 });

    const other = await bootstrap(stranger);
    expect(other.account_type).toBe('pro');
    expect(other.settings).toMatchObject({ time_zone: 'UTC', currency: 'USD' });
  });

  it('refuses invalid settings with 400 naming the field, and changes nothing', async () => {
    const cases: Array<[unknown, string]> = [
      [{ settings: { time_zone: 'Mars/Olympus_Mons' } }, 'settings.time_zone'],
      [{ settings: { time_zone: '+05:00' } }, 'settings.time_zone'],
      [{ settings: { time_zone: 'EST5EDT; DROP' } }, 'settings.time_zone'],
      [{ settings: { date_format: '%Q' } }, 'settings.date_format'],
      [{ settings: { currency: 'DOLLARS' } }, 'settings.currency'],
      [{ settings: { listing_size: 0 } }, 'settings.listing_size'],
      [{ settings: { reminder: { hour: 24 } } }, 'settings.reminder.hour'],
      [{ settings: { not_working_days: 'friday' } }, 'settings.not_working_days'],
      [{ settings: { timezone: 'UTC' } }, 'settings.timezone'],
      [{ settings: { delimiter: ',' } }, 'settings.delimiter'],
      [{ cost_setup: { commission_percentage: 100 } }, 'cost_setup.commission_percentage'],
      [{ cost_setup: { commission_base: 'profit' } }, 'cost_setup.commission_base'],
      [{ account_type: 'gold' }, 'account_type'],
    ];
    for (const [body, field] of cases) {
      const res = await operator(admin.account.id, body);
      expect({ field, status: res.status, name: res.body.error_name }).toEqual({ field, status: 400, name: 'invalid_request_data' });
      expect(res.body.errors).toHaveProperty([field]);
    }
    const data = await bootstrap(admin);
    expect(data.settings).toMatchObject({ time_zone: 'Europe/Dublin', date_format: '%Y-%m-%d', separator: ',', delimiter: '.' });
    expect(data.account_type).toBe('trial');

    expect((await operator('0123456789abcdef01234567', { account_type: 'free' })).status).toBe(404);
    expect((await operator(admin.account.id, { account_type: 'free' }, null)).status).toBe(401);
  });

  it("offers quick dates from the caller's own next actions", async () => {
    const day = (iso: string, plus: { days?: number; months?: number }) => {
      const at = new Date(`${iso.slice(0, 10)}T00:00:00Z`);
      at.setUTCMonth(at.getUTCMonth() + (plus.months ?? 0));
      at.setUTCDate(at.getUTCDate() + (plus.days ?? 0));
      return at.toISOString().slice(0, 10);
    };
    // The stranger's account keeps UTC: an action's day of creation is its created_at's UTC day.
    const spans: Array<{ days?: number; months?: number }> = [
      { days: 10 },
      { days: 10 },
      { days: 10 },
      { days: 14 },
      { days: 14 },
      { months: 1 },
      { days: 400 },
    ];
    for (const [i, span] of spans.entries()) {
      const contact = (await ok(stranger, 'POST', '/contacts', { last_name: `Quick ${i}` }, 201)).contact;
      const made = (await ok(stranger, 'POST', `/contacts/${contact.id}/actions`, { text: 'Call', status: 'waiting' }, 201)).action;
      const res = await call(stranger)('PUT', `/actions/${made.id}`, { text: 'Call', status: 'date', date: day(made.created_at, span) });
      expect(res.status).toBe(200);
    }
    // Another user's actions and other accounts' are not the caller's.
    const theirs = (await ok(admin, 'POST', '/contacts', { last_name: 'Not quick' }, 201)).contact;
    await ok(admin, 'POST', `/contacts/${theirs.id}/actions`, { text: 'Call', status: 'date', date: '2099-01-01' }, 201);

    const data = await bootstrap(stranger);
    expect(data.next_action_dates).toEqual(['1 days', '3 days', '10 days', '2 weeks', '1 months'].map(quick));
  });

  it('lists the countries last used in contact addresses', async () => {
    await ok(stranger, 'POST', '/contacts', { last_name: 'Irish', address_list: [{ city: 'Cork', country_code: 'IE' }] }, 201);
    await ok(stranger, 'POST', '/contacts', { last_name: 'German', address_list: [{ city: 'Berlin', country_code: 'DE' }] }, 201);
    const data = await bootstrap(stranger);
    expect(data.settings.popular_countries.slice().sort()).toEqual(['DE', 'IE']);
  });
});
