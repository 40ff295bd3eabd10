import type { CreatedAccount, ServicesHandle } from '@crm/testing';
import { calls, type Json } from './setup';

export type { Json } from './setup';

/**
 * HTTP helpers of the record e2e files (deals, notes, actions): `call` as a user, `ok` that
 * returns `data` or throws with the answer (see {@link calls}), `contact` that creates one.
 */
export function recordCalls(services: () => ServicesHandle) {
  const { call, ok } = calls({
    get gatewayUrl() {
      return services().gatewayUrl;
    },
  });
  const contact = async (who: CreatedAccount, body: Record<string, unknown> = {}) =>
    (await ok(who, 'POST', '/contacts', { first_name: 'Ann', last_name: 'Lee', ...body }, 201)).contact as Json;
  return { call, ok, contact };
}
