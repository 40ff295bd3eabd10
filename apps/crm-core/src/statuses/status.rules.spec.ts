import { DEFAULT_STATUS_COLOR } from '@crm/contracts';
import { changedStatusValues, defaultStatusText, newStatusValues, replacementChanges, statusValuesDiffer } from './status.rules';

const current = { status: 'Prospect', text: 'PR', description: 'Qualified', color: '#F9A825' };

describe('status rules', () => {
  it('defaults text to the first two letters or digits of the name, in capitals', () => {
    expect(defaultStatusText('qualified')).toBe('QU');
    expect(defaultStatusText('  #1 hot!')).toBe('1H');
    expect(defaultStatusText('élan')).toBe('ÉL');
    expect(defaultStatusText('!!')).toBe('!!');
  });

  it('a new status takes the default text, an empty description and the default color', () => {
    expect(newStatusValues({ status: 'Hot' })).toEqual({ status: 'Hot', text: 'HO', description: '', color: DEFAULT_STATUS_COLOR });
    expect(newStatusValues({ status: 'Hot', text: 'H', description: 'd', color: '#000000' })).toEqual({
      status: 'Hot',
      text: 'H',
      description: 'd',
      color: '#000000',
    });
  });

  it('a partial change keeps what is not sent', () => {
    expect(changedStatusValues(current, { color: '#111111' })).toEqual({ ...current, color: '#111111' });
    expect(changedStatusValues(current, { status: 'Renamed' })).toEqual({ ...current, status: 'Renamed' });
  });

  it('a replacement resets what is not sent; a reset text follows the new name', () => {
    expect(changedStatusValues(current, replacementChanges({ status: 'Warm' }))).toEqual({
      status: 'Warm',
      text: 'WA',
      description: '',
      color: DEFAULT_STATUS_COLOR,
    });
    expect(changedStatusValues(current, replacementChanges({}))).toMatchObject({ status: 'Prospect', text: 'PR' });
  });

  it('tells a change from a no-op', () => {
    expect(statusValuesDiffer(current, { ...current })).toBe(false);
    expect(statusValuesDiffer(current, { ...current, description: '' })).toBe(true);
  });
});
