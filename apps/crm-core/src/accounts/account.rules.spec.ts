import { type ApiError, DEFAULT_ACCOUNT_SETTINGS, DEFAULT_COST_SETUP, parseContract, UpdateAccountSettingsRequest } from '@crm/contracts';
import { changedSettings, settingsOf, type StoredSettingsRow } from './account.rules';

const nothingSet: StoredSettingsRow = { account_type: 'pro', settings: {}, cost_setup: {} };
const change = (body: unknown) => parseContract(UpdateAccountSettingsRequest, body);

/** The fields a 400 of `run` names; none when it passes. */
function refused(run: () => unknown): string[] {
  try {
    run();
  } catch (error) {
    return Object.keys((error as ApiError).errors).sort();
  }
  return [];
}

describe('account settings rules', () => {
  it('reads every key not set as its default', () => {
    expect(settingsOf(nothingSet)).toEqual({ account_type: 'pro', settings: DEFAULT_ACCOUNT_SETTINGS, cost_setup: DEFAULT_COST_SETUP });
    const some = settingsOf({ account_type: 'free', settings: { currency: 'EUR', reminder: { type: 'never', hour: 6 } }, cost_setup: {} });
    expect(some.settings).toMatchObject({ currency: 'EUR', time_zone: 'UTC', reminder: { type: 'never', hour: 6 } });
  });

  it('stores only the keys sent, the time zone under its canonical name', () => {
    const next = changedSettings(
      { account_type: 'pro', settings: { currency: 'EUR' }, cost_setup: {} },
      change({ settings: { time_zone: 'america/new_york', reminder: { hour: 9 } }, cost_setup: { cost_enabled: true } }),
    );
    expect(next).toEqual({
      account_type: 'pro',
      settings: { currency: 'EUR', time_zone: 'America/New_York', reminder: { type: 'new_task', hour: 9 } },
      cost_setup: { cost_enabled: true },
    });
  });

  it('refuses a decimal separator equal to the thousands delimiter in effect, naming the field sent', () => {
    const fields = (body: unknown) => refused(() => changedSettings(nothingSet, change(body)));
    expect(fields({ settings: { separator: ',' } })).toEqual(['settings.separator']);
    expect(fields({ settings: { delimiter: '.' } })).toEqual(['settings.delimiter']);
    expect(fields({ settings: { separator: ',', delimiter: '.' } })).toEqual([]);
  });

  it('validates time zones through Intl and names each bad field', () => {
    const errors = (body: unknown) => refused(() => change(body));
    expect(errors({ settings: { time_zone: 'Europe/Dublin' } })).toEqual([]);
    expect(errors({ settings: { time_zone: 'UTC' } })).toEqual([]);
    expect(errors({ settings: { time_zone: 'Europe/Atlantis' } })).toEqual(['settings.time_zone']);
    expect(errors({ settings: { time_zone: '+05:00' } })).toEqual(['settings.time_zone']);
    expect(errors({ settings: { date_format: '%d %B' }, cost_setup: { commission_percentage: 0 } })).toEqual([
      'cost_setup.commission_percentage',
      'settings.date_format',
    ]);
  });
});
