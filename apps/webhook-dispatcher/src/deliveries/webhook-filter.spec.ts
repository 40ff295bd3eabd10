import { webhookWants } from './webhook-filter';

const STATUS = 'abcdef0123456789abcdef01';
const hook = (over: { types?: string[]; status_id?: string | null; active?: boolean } = {}) => ({
  types: [],
  status_id: null,
  active: true,
  ...over,
});

describe('which webhooks get an event', () => {
  it('sends every type to a webhook without a type filter, and only the listed ones to one with', () => {
    expect(webhookWants(hook(), { type: 'deal', contact_status_id: null })).toBe(true);
    expect(webhookWants(hook({ types: ['contact', 'note'] }), { type: 'note', contact_status_id: null })).toBe(true);
    expect(webhookWants(hook({ types: ['contact', 'note'] }), { type: 'deal', contact_status_id: null })).toBe(false);
  });

  it("filters on the contact's status whatever its letter case, and drops events without one", () => {
    const filtered = hook({ status_id: STATUS });
    expect(webhookWants(filtered, { type: 'contact', contact_status_id: STATUS.toUpperCase() })).toBe(true);
    expect(webhookWants(filtered, { type: 'contact', contact_status_id: 'f'.repeat(24) })).toBe(false);
    expect(webhookWants(filtered, { type: 'contact', contact_status_id: null })).toBe(false);
  });

  it('sends nothing to a webhook switched off', () => {
    expect(webhookWants(hook({ active: false }), { type: 'contact', contact_status_id: null })).toBe(false);
  });
});
