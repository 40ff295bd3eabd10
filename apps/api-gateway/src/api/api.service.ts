import { Injectable } from '@nestjs/common';
import {
  API_PREFIX,
  ApiError,
  assertAdmin,
  assertKnownParameters,
  ErrorName,
  executedByCrmCore,
  listFormatChoice,
  parseContract,
  successEnvelope,
  type Caller,
  type HttpOrigin,
  type RouteDeclaration,
  type SuccessEnvelope,
  type WriteIdempotency,
} from '@crm/contracts';
import { RpcClient } from '@crm/messaging';
import { GatewayConfig } from '../config/gateway.config';
import type { ResolvedRoute } from '../routing/route-table';
import { acceptIfMatch } from './etag';
import { ReadPositions } from './read-positions';

export interface ApiInput {
  query: Record<string, unknown>;
  body: unknown;
  /** The raw query string (without `?`), passed on so replies can link to "the same query". */
  rawQuery?: string;
  /** The If-Match header of a write (as sent), checked by crm-core against the record it locks. */
  ifMatch?: string;
  /**
   * The reply's `data` may stay the JSON text crm-core wrote (RawJsonData), for a caller that only
   * writes it into the HTTP answer (the REST edge); MCP tools read the data and leave this unset.
   */
  rawData?: boolean;
  /**
   * The X-List-Format header as sent (LIST_FORMAT_HEADER): read, and validated, only by a route
   * with `listFormat`; MCP reads pin `paged`.
   */
  listFormat?: string;
  /**
   * A read's `read_after` (read-positions.ts), when the caller looked it up already (the REST edge
   * starts it beside the rate-limit call); else looked up here for a read of crm-core.
   */
  readAfter?: Promise<string>;
  /** A POST's Idempotency-Key, scoped, with the request's fingerprint, for crm-core to record with the write (RpcRequest.idempotency). */
  idempotency?: WriteIdempotency;
}

/** One API request: scope check, validation against the route's contract, NATS call, envelope. */
@Injectable()
export class ApiService {
  constructor(
    private readonly rpc: RpcClient,
    private readonly config: GatewayConfig,
    private readonly positions: ReadPositions,
  ) {}

  async handle(
    caller: Caller,
    { route, params }: ResolvedRoute,
    input: ApiInput,
  ): Promise<{ status: number; body: SuccessEnvelope; replayed?: boolean }> {
    authorizeRoute(caller, route);
    if (route.adminUnlessOwn && params[route.adminUnlessOwn]?.toLowerCase() !== caller.user_id)
      assertAdmin(caller, 'Only account administrators can change another user');
    if (input.body !== undefined && (input.body === null || typeof input.body !== 'object' || Array.isArray(input.body))) {
      throw ApiError.invalid({ body: 'must be a JSON object' });
    }
    const listFormat = route.listFormat ? { list_format: listFormatChoice(input.listFormat, input.query) } : {};
    const ifMatch = input.ifMatch === undefined ? undefined : acceptIfMatch(route.operationId, input.ifMatch);
    assertKnownParameters(route.request, input.query);
    const merged = { ...input.query, ...((input.body as object | undefined) ?? {}), ...params };
    const payload = parseContract(route.request, merged);
    const origin: HttpOrigin = { base_url: `${this.config.PUBLIC_URL}${API_PREFIX}`, query: input.rawQuery ?? '' };
    const idempotency = input.idempotency ? { idempotency: input.idempotency } : {};
    // Read-your-writes: crm-core reads from its replica only once it has replayed this (decisions.md "Reads from a replica").
    const readAfter = readsCrmCore(route) ? { read_after: await (input.readAfter ?? this.positions.lookup(caller)) } : {};
    const reply = await this.rpc
      .call(route.subject, { caller, payload, origin, ...listFormat, ...idempotency, ...readAfter }, undefined, {
        ifMatch,
        rawData: input.rawData,
      })
      .catch((error: unknown) => {
        throw route.access === 'write' ? writeOutcomeUnknown(error, route, input.idempotency !== undefined) : error;
      });
    if (!reply.ok) throw ApiError.fromData(reply.error);
    // Kept before the write is answered, so the client's next read, through any gateway, finds it.
    if (reply.commit_lsn !== undefined) await this.positions.record(caller, reply.commit_lsn);
    const status = reply.http_status ?? route.successStatus;
    return { status, body: successEnvelope(reply.data, reply.summary), ...(reply.replayed ? { replayed: true } : {}) };
  }
}

/** Whether the caller may use the route at all: API-key-only routes, the OAuth scope, then the role. */
export function authorizeRoute(caller: Caller, route: RouteDeclaration): void {
  if (caller.auth_method === 'oauth' && route.apiKeyOnly) {
    const message = 'This endpoint is not available for OAuth applications';
    throw new ApiError(route.apiKeyOnly === 'unauthorized' ? ErrorName.InvalidAuthToken : ErrorName.NoPermission, message);
  }
  assertScope(caller, route.access, route.mcpWrite === true);
  if (route.adminOnly) assertAdmin(caller, route.adminOnly === true ? undefined : route.adminOnly);
}

/** crm.readonly reads; crm reads and writes; mcp reads and writes only where allowed. */
export function assertScope(caller: Caller, access: 'read' | 'write', mcpWrite: boolean): void {
  const scopes = caller.scopes;
  if (scopes.includes('crm')) return;
  if (access === 'read' && (scopes.includes('crm.readonly') || scopes.includes('mcp'))) return;
  if (access === 'write' && mcpWrite && scopes.includes('mcp')) return;
  throw new ApiError(ErrorName.NoPermission, 'This action requires the OAuth scope crm');
}

/**
 * A write that got no answer (503: no reply in time, or the connection lost): it may have been
 * applied, and the message says how to retry safely (docs/decisions.md "Idempotency recorded with
 * the write").
 */
export function writeOutcomeUnknown(error: unknown, route: RouteDeclaration, keyed: boolean): unknown {
  if (!(error instanceof ApiError) || error.errorName !== ErrorName.ServiceUnavailable) return error;
  const retry =
    route.method !== 'POST'
      ? 'Read the record to see whether it was, then retry if needed.'
      : keyed && executedByCrmCore(route.subject)
        ? 'Retry with the same Idempotency-Key: the retry answers with the first outcome if it was applied, and applies it once if not.'
        : keyed
          ? 'Read the record to see whether it was before retrying.'
          : 'Retrying may apply it twice: send an Idempotency-Key header (the same on every retry of this write) to make retries safe.';
  return new ApiError(ErrorName.ServiceUnavailable, `The service did not answer in time; the write may have been applied. ${retry}`);
}

/** A read that crm-core answers: it carries `read_after`. */
export function readsCrmCore(route: RouteDeclaration): boolean {
  return route.method === 'GET' && executedByCrmCore(route.subject);
}
