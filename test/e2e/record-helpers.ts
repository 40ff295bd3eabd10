import { api, type CreatedAccount, type ServicesHandle } from '@crm/testing';

/* eslint-disable @typescript-eslint/no-explicit-any */
export type Json = any;

/**
 * HTTP helpers of the record e2e files (deals, notes, actions): `call` as a user, `ok` that
 * returns `data` or throws with the answer, `contact` that creates one. `services` is read
 * lazily because it is started in the file's beforeAll.
 */
export function recordCalls(services: () => ServicesHandle) {
  const call = (who: CreatedAccount) => api(services(), who);
  const ok = async (who: CreatedAccount, method: string, path: string, body?: unknown, status = 200): Promise<Json> => {
    const res = await call(who)<Json>(method, path, body);
    if (res.status !== status) throw new Error(`${method} ${path} answered ${res.status}: ${res.text}`);
    return res.body.data;
  };
  const contact = async (who: CreatedAccount, body: Record<string, unknown> = {}) =>
    (await ok(who, 'POST', '/contacts', { first_name: 'Ann', last_name: 'Lee', ...body }, 201)).contact as Json;
  return { call, ok, contact };
}
