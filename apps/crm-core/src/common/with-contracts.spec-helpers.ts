import { parseContract, type Caller } from '@crm/contracts';
import type { ClassConstructor } from 'class-transformer';

/** `service` with the listed methods taking a raw payload instead of a typed request. */
export type RawPayloadCalls<S, K extends keyof S> = Omit<S, K> & {
  [M in K]: S[M] extends (caller: Caller, request: never) => infer R ? (caller: Caller, payload: object) => R : never;
};

/**
 * For tests that call services the way the gateway's messages reach them: each listed method
 * parses its payload into the request class first (parseContract, as @ValidRequest() does in a
 * handler), so defaults, coercion and validation errors (as rejections) are the API's.
 */
export function withContracts<S extends object, K extends keyof S>(
  service: S,
  requests: Record<K, ClassConstructor<object>>,
): RawPayloadCalls<S, K> {
  return new Proxy(service, {
    get(target, key, receiver) {
      const value: unknown = Reflect.get(target, key, receiver);
      const cls = (requests as Partial<Record<PropertyKey, ClassConstructor<object>>>)[key];
      if (typeof value !== 'function' || !cls) return value;
      // async: an invalid payload rejects, as a handler's reply would.
      return async (caller: Caller, payload: object) =>
        (value as (c: Caller, r: object) => unknown).call(target, caller, parseContract(cls, payload));
    },
  }) as unknown as RawPayloadCalls<S, K>;
}
