import type { ExecutionContext, INestApplicationContext, Type } from '@nestjs/common';
import {
  CUSTOM_ROUTE_ARGS_METADATA,
  EXCEPTION_FILTERS_METADATA,
  GUARDS_METADATA,
  INTERCEPTORS_METADATA,
  PIPES_METADATA,
  ROUTE_ARGS_METADATA,
} from '@nestjs/common/constants';
import { MetadataScanner, ModulesContainer } from '@nestjs/core';
import { RpcReplyInterceptor } from './rpc-reply.interceptor';

/** @nestjs/microservices' metadata of @MessagePattern (constants.js): read here, the transport is ours. */
const PATTERN_METADATA = 'microservices:pattern';
const PATTERN_HANDLER_METADATA = 'microservices:handler_type';
/** PatternHandler.MESSAGE: @MessagePattern (request/reply), not @EventPattern. */
const MESSAGE_HANDLER = 1;
/** RpcParamtype.PAYLOAD: @Payload(). */
const PAYLOAD_PARAM = '3';

type ArgumentOf = (context: RpcArgumentContext) => unknown;

/** One @MessagePattern method, resolved once at start-up: called directly for each request. */
export interface RpcHandler {
  /** The registered subject (without the namespace). */
  readonly subject: string;
  readonly instance: object;
  readonly method: (...args: unknown[]) => unknown;
  readonly controller: Type<unknown>;
  readonly args: readonly ArgumentOf[];
}

/**
 * One request as a handler's parameters see it: the ExecutionContext a parameter decorator's
 * factory (createParamDecorator) reads, with the request's body as `switchToRpc().getData()`, the
 * handler and its class.
 */
export class RpcArgumentContext {
  constructor(
    readonly handler: RpcHandler,
    readonly data: unknown,
  ) {}

  /** The handler's arguments for this request. */
  arguments(): unknown[] {
    return this.handler.args.map((argumentOf) => argumentOf(this));
  }

  switchToRpc() {
    return this;
  }

  getData<T>(): T {
    return this.data as T;
  }

  /** What Nest's NatsContext offers a handler: the subject. */
  getContext<T>(): T {
    return { getSubject: () => this.handler.subject } as T;
  }

  getHandler() {
    return this.handler.method;
  }

  getClass<T>() {
    return this.handler.controller as T;
  }

  getType<T extends string>(): T {
    return 'rpc' as T;
  }

  getArgs<T extends unknown[]>(): T {
    return [this.data, this.getContext()] as T;
  }

  getArgByIndex<T>(index: number): T {
    return this.getArgs()[index] as T;
  }

  switchToHttp(): never {
    throw new Error('an RPC handler has no HTTP context');
  }

  switchToWs(): never {
    throw new Error('an RPC handler has no WebSocket context');
  }
}

interface ParamMetadata {
  index: number;
  data?: unknown;
  pipes?: unknown[];
  factory?: (data: unknown, context: ExecutionContext) => unknown;
}

/** The function computing one argument from a request, from its decorator's metadata; throws for what the server does not support. */
function argumentOf(key: string, param: ParamMetadata, where: string): ArgumentOf {
  if (param.pipes && param.pipes.length > 0)
    throw new Error(`${where}: parameter ${param.index} has pipes, which NatsRpcServer does not run`);
  if (key.includes(CUSTOM_ROUTE_ARGS_METADATA) && param.factory) {
    const { factory, data } = param;
    return (context) => factory(data, context as unknown as ExecutionContext);
  }
  if (key.split(':', 1)[0] === PAYLOAD_PARAM) {
    const property = param.data;
    if (property === undefined) return (context) => context.data;
    if (typeof property !== 'string') throw new Error(`${where}: @Payload() takes a property name or nothing`);
    return (context) => (context.data as Record<string, unknown> | null | undefined)?.[property];
  }
  throw new Error(`${where}: parameter ${param.index} has a decorator NatsRpcServer does not support (${key})`);
}

function enhancers(key: string, ...targets: object[]): unknown[] {
  return targets.flatMap((target) => (Reflect.getMetadata(key, target) as unknown[] | undefined) ?? []);
}

/**
 * Every @MessagePattern handler of the application's controllers, with its parameters resolved
 * from their decorators' metadata once. A handler the server cannot run exactly as declared stops
 * the start: an event pattern, a pattern that is not a string, a request-scoped controller, pipes,
 * guards, exception filters, or an interceptor other than RpcReplyInterceptor (which it must have:
 * the server turns results and errors into replies as that interceptor declares).
 */
export function discoverRpcHandlers(app: INestApplicationContext): RpcHandler[] {
  const scanner = new MetadataScanner();
  const handlers: RpcHandler[] = [];
  const subjects = new Set<string>();
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as Type<unknown> | null;
      if (!controller || !controller.prototype) continue;
      const prototype = controller.prototype as Record<string, unknown>;
      for (const name of scanner.getAllMethodNames(prototype)) {
        const method = prototype[name] as (...args: unknown[]) => unknown;
        const patterns = Reflect.getMetadata(PATTERN_METADATA, method) as unknown[] | undefined;
        if (!patterns) continue;
        const where = `${controller.name}.${name}`;
        if (Reflect.getMetadata(PATTERN_HANDLER_METADATA, method) !== MESSAGE_HANDLER)
          throw new Error(`${where}: only @MessagePattern handlers are supported`);
        if (!wrapper.isDependencyTreeStatic()) throw new Error(`${where}: a request-scoped controller is not supported`);
        const interceptors = enhancers(INTERCEPTORS_METADATA, controller, method);
        if (!interceptors.includes(RpcReplyInterceptor) || interceptors.some((i) => i !== RpcReplyInterceptor))
          throw new Error(`${where}: a handler must use RpcReplyInterceptor and no other interceptor`);
        for (const [key, what] of [
          [GUARDS_METADATA, 'guards'],
          [PIPES_METADATA, 'pipes'],
          [EXCEPTION_FILTERS_METADATA, 'exception filters'],
        ] as const)
          if (enhancers(key, controller, method).length > 0) throw new Error(`${where}: ${what} are not supported on message handlers`);
        const params = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, name) ?? {}) as Record<string, ParamMetadata>;
        const count = Math.max(method.length, ...Object.values(params).map((param) => param.index + 1));
        const args: ArgumentOf[] = Array.from({ length: count }, () => () => undefined);
        for (const [key, param] of Object.entries(params)) args[param.index] = argumentOf(key, param, where);
        for (const subject of patterns) {
          if (typeof subject !== 'string') throw new Error(`${where}: a message pattern must be a subject (a string)`);
          if (subjects.has(subject)) throw new Error(`${where}: ${subject} has another handler already`);
          subjects.add(subject);
          handlers.push({ subject, instance: wrapper.instance as object, method, controller, args });
        }
      }
    }
  }
  return handlers;
}
