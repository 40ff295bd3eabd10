import type { ExecutionContext } from '@nestjs/common';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { ErrorName, MAX_OBJECT_KEYS } from '@crm/contracts';
import { IsString } from 'class-validator';
import { ValidMessage, ValidRequest } from './rpc-params.decorators';

class Named {
  @IsString() name: string;
}

type Factory = (data: unknown, context: ExecutionContext) => unknown;

/** The function Nest runs for a parameter decorator (what a handler's argument would be). */
function factoryOf(decorator: (data: unknown) => ParameterDecorator): Factory {
  class Probe {
    handle(@decorator(Named) _value: unknown): void {}
  }
  const args = Reflect.getMetadata(ROUTE_ARGS_METADATA, Probe, 'handle') as Record<string, { factory: Factory }>;
  return Object.values(args)[0].factory;
}

const rpcContext = (data: unknown) =>
  ({ switchToRpc: () => ({ getData: () => data }), getHandler: () => () => undefined }) as unknown as ExecutionContext;

const wide = (): Record<string, unknown> => {
  const object: Record<string, unknown> = { name: 'a' };
  for (let i = 0; i < 110_000; i += 1) object[i.toString(36)] = 0;
  return object;
};

describe('NATS consumers refuse oversized input before any transform (crm-core, auth-server, dispatcher)', () => {
  it('@ValidRequest(): a payload of 110,000 keys is 400 naming the limit', () => {
    const parse = factoryOf(ValidRequest as (data: unknown) => ParameterDecorator);
    expect(() => parse(Named, rpcContext({ caller: {}, payload: wide() }))).toThrow(
      expect.objectContaining({ errorName: ErrorName.InvalidRequestData, errors: { body: `must have at most ${MAX_OBJECT_KEYS} keys` } }),
    );
    expect(parse(Named, rpcContext({ caller: {}, payload: { name: 'ok' } }))).toEqual({ name: 'ok' });
  });

  it('@ValidMessage(): an internal message of 110,000 keys is 400 naming the limit', () => {
    const parse = factoryOf(ValidMessage as (data: unknown) => ParameterDecorator);
    expect(() => parse(Named, rpcContext(wide()))).toThrow(expect.objectContaining({ errorName: ErrorName.InvalidRequestData }));
  });
});
