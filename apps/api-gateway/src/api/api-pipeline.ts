import { Injectable } from '@nestjs/common';
import { assertInputBounds, executedByCrmCore, type Caller } from '@crm/contracts';
import { IdempotencyStore, idempotencyScope, requestFingerprint, type IdempotentOutcome } from '../limits/idempotency';
import type { ResolvedRoute } from '../routing/route-table';
import { ApiService, authorizeRoute, type ApiInput } from './api.service';

/**
 * One authenticated request past the per-user limits, for the REST API and the MCP tools alike:
 * the route's authorization (OAuth availability, scope) first, then the optional Idempotency-Key,
 * then validation and the call. A replayed key never skips authorization, and is scoped to the
 * user and the credential.
 */
@Injectable()
export class ApiPipeline {
  constructor(
    private readonly api: ApiService,
    private readonly idempotency: IdempotencyStore,
  ) {}

  async run(caller: Caller, resolved: ResolvedRoute, input: ApiInput, idempotencyKey?: string): Promise<IdempotentOutcome> {
    authorizeRoute(caller, resolved.route);
    if (idempotencyKey === undefined) return { replayed: false, ...(await this.api.handle(caller, resolved, input)) };
    // The fingerprint walks the body: refuse what validation would refuse (depth, keys, array sizes) first.
    if (input.body !== null && typeof input.body === 'object') assertInputBounds(input.body);
    const fingerprint = requestFingerprint(resolved.route.operationId, resolved.params, input.query, input.body);
    // crm-core records the key with the write (decisions.md "Idempotency recorded with the write"): it gets the scoped key.
    const recordedByService = executedByCrmCore(resolved.route.subject);
    return this.idempotency.run(
      idempotencyScope(caller),
      idempotencyKey,
      fingerprint,
      (idempotency) => this.api.handle(caller, resolved, recordedByService ? { ...input, idempotency } : input),
      { replyCarriesSecret: resolved.route.replyCarriesSecret === true, recordedByService },
    );
  }
}
