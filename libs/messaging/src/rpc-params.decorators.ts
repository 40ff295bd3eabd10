import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import {
  API_ROUTES,
  parseContract,
  trustedContract,
  type Caller,
  type HttpOrigin,
  type ListFormatChoice,
  type RpcRequest,
} from '@crm/contracts';
import type { ClassConstructor } from 'class-transformer';

/** Nest's metadata key for @MessagePattern's subjects (@nestjs/microservices/constants). */
const PATTERN_METADATA = 'microservices:pattern';

const requestClassBySubject = new Map<string, ClassConstructor<object>>(API_ROUTES.map((route) => [route.subject, route.request]));
const requestClassByHandler = new WeakMap<object, ClassConstructor<object>>();

/** The request class of the route whose subject the handler answers (read once per handler). */
function routeRequestClass(handler: object): ClassConstructor<object> {
  let cls = requestClassByHandler.get(handler);
  if (cls) return cls;
  const patterns = (Reflect.getMetadata(PATTERN_METADATA, handler) ?? []) as unknown[];
  const subject = patterns.find((p): p is string => typeof p === 'string' && requestClassBySubject.has(p));
  cls = subject === undefined ? undefined : requestClassBySubject.get(subject);
  if (!cls)
    throw new Error(`@ValidRequest(): no API route declares the subject of this handler (${String(patterns)}); pass the message class`);
  requestClassByHandler.set(handler, cls);
  return cls;
}

/**
 * The request's payload as an instance of the class its route declares in libs/contracts. An API
 * route's payload was validated by the gateway against that class and arrived signed (NatsRpcServer
 * refuses anything else before a handler runs): it is only transformed, not validated again
 * (trustedContract; decisions.md "Lean RPC and validation once"). With `cls` (a message that is not
 * an API route) it is parsed and validated (parseContract): invalid input never reaches the
 * handler, it becomes 400 invalid_request_data naming the fields.
 */
export const ValidRequest = createParamDecorator((cls: ClassConstructor<object> | undefined, context: ExecutionContext) => {
  const payload = context.switchToRpc().getData<RpcRequest>()?.payload ?? {};
  return cls ? parseContract(cls, payload) : trustedContract(routeRequestClass(context.getHandler()), payload);
});

/** The authenticated caller the gateway resolved (account, user, role, scopes). */
export const RpcCaller = createParamDecorator((_: unknown, context: ExecutionContext): Caller => {
  return context.switchToRpc().getData<RpcRequest>().caller;
});

/** Where the HTTP request came from (base URL and raw query), for replies that link back. */
export const RpcOrigin = createParamDecorator((_: unknown, context: ExecutionContext): HttpOrigin | undefined => {
  return context.switchToRpc().getData<RpcRequest & { origin?: HttpOrigin }>().origin;
});

/**
 * The list format the HTTP request asked for (its X-List-Format header) and whether its query
 * pages, on the routes declared with `listFormat`; undefined on any other request.
 */
export const RpcListFormat = createParamDecorator((_: unknown, context: ExecutionContext): ListFormatChoice | undefined => {
  return context.switchToRpc().getData<RpcRequest>().list_format;
});

/**
 * An internal message without the caller envelope (e.g. account provisioning from the
 * auth-server), parsed and validated whole into `cls`.
 */
export const ValidMessage = createParamDecorator((cls: ClassConstructor<object>, context: ExecutionContext) => {
  return parseContract(cls, context.switchToRpc().getData<unknown>());
});
