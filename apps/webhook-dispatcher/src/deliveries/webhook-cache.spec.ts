import type { DeliveriesRepository, WebhookTarget } from './deliveries.repository';
import { WebhookCache } from './webhook-cache';

/** A repository double that counts loads and can hold one open (the race with a change). */
function repository() {
  const state = { loads: 0, gate: Promise.resolve(), webhooks: [] as WebhookTarget[] };
  const repo = {
    activeWebhooksOf: async (accounts: string[]) => {
      state.loads += 1;
      const snapshot = state.webhooks.filter((w) => accounts.includes(w.account_id));
      await state.gate;
      return snapshot;
    },
  } as unknown as DeliveriesRepository;
  return { repo, state };
}

const hook = (id: string, account: string): WebhookTarget => ({
  id,
  account_id: account,
  hook_url: 'https://x.example',
  secretkey: '',
  types: [],
  status_id: null,
  active: true,
  secrets: ['whsec_x'],
});

describe('webhook cache of the ingesting replica', () => {
  it('loads an account once, then serves it from memory until a change of it is notified', async () => {
    const { repo, state } = repository();
    state.webhooks = [hook('w1', 'a'), hook('w2', 'b')];
    const cache = new WebhookCache(repo);
    expect((await cache.activeWebhooksOf(['a', 'b'])).get('a')).toEqual([hook('w1', 'a')]);
    await cache.activeWebhooksOf(['a', 'b', 'c']);
    expect(state.loads).toBe(2); // only 'c' was missing the second time
    expect((await cache.activeWebhooksOf(['c'])).get('c')).toEqual([]);
    expect(state.loads).toBe(2);

    state.webhooks.push(hook('w3', 'a'));
    cache.invalidate('a');
    expect((await cache.activeWebhooksOf(['a'])).get('a')).toHaveLength(2);
    cache.clear();
    await cache.activeWebhooksOf(['b']);
    expect(state.loads).toBe(4);
  });

  it('does not keep a load that raced with a change of the same account', async () => {
    const { repo, state } = repository();
    state.webhooks = [hook('w1', 'a')];
    let open!: () => void;
    state.gate = new Promise((r) => (open = r));
    const cache = new WebhookCache(repo);
    const racing = cache.activeWebhooksOf(['a']);
    cache.invalidate('a'); // a change committed while the (older) snapshot was on its way
    open();
    expect((await racing).get('a')).toHaveLength(1); // used for this batch...
    state.gate = Promise.resolve();
    await cache.activeWebhooksOf(['a']);
    expect(state.loads).toBe(2); // ...but not kept
  });
});
