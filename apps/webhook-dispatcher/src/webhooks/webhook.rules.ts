import { randomBytes } from 'node:crypto';
import { ApiError, type CreateWebhookRequest } from '@crm/contracts';
import { literalPrivateHost } from './address-guard';
import type { WebhookWrite } from './webhooks.repository';

/** After a rotation the previous secret keeps signing this long (decisions.md "Webhooks"), as a PostgreSQL interval. */
export const ROTATION_OVERLAP = '24 hours';

/** `whsec_` + base64 of 32 random bytes (Standard Webhooks). */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/**
 * What a create or an update may not hold beyond its contract: an entity listed twice in `types`,
 * a receiver at a literal private, loopback or metadata address (unless WEBHOOK_ALLOW_PRIVATE).
 * Throws the 400 naming the field.
 */
export function assertWebhookAllowed(request: Pick<CreateWebhookRequest, 'types' | 'hook_url'>, allowPrivate: boolean): void {
  if (new Set(request.types).size !== request.types.length) throw ApiError.invalid({ types: 'lists each entity at most once' });
  if (!allowPrivate) {
    const problem = literalPrivateHost(request.hook_url);
    if (problem) throw ApiError.invalid({ hook_url: problem });
  }
}

/** 400 naming the cap: the account already has `max` webhooks (decisions.md "Event pipeline and fan-out bounds"). */
export function webhookLimitReached(max: number): ApiError {
  return ApiError.invalid(
    { webhooks: `an account can have at most ${max} webhooks; delete one before registering another` },
    `This account already has the maximum of ${max} webhooks`,
  );
}

/** The columns a request writes; ids are stored in lower case. */
export function webhookWrite(request: CreateWebhookRequest): WebhookWrite {
  return {
    name: request.name,
    hook_url: request.hook_url,
    secretkey: request.secretkey,
    types: request.types,
    status_id: request.status_id?.toLowerCase() ?? null,
    active: request.active,
  };
}
