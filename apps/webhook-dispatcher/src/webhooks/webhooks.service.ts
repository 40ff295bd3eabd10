import { Injectable } from '@nestjs/common';
import { isId, newId } from '@crm/common';
import {
  ApiError,
  assertAdmin,
  CreateWebhookRequest,
  ListWebhooksRequest,
  pageInfo,
  parseContract,
  UpdateWebhookRequest,
  WebhookIdRequest,
  type Caller,
  type ListWebhooksReply,
  type WebhookDto,
  type WebhookReply,
} from '@crm/contracts';
import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { DispatcherConfig } from '../config/dispatcher.config';
import { literalPrivateHost } from './address-guard';

const ADMIN_ONLY = 'Only account administrators can manage webhooks';
/** After a rotation the previous secret keeps signing this long (decisions.md). */
const ROTATION_OVERLAP = '24 hours';
/** First key of the advisory lock that serializes one account's webhook creations (the second: a hash of the account id). */
const ACCOUNT_LOCK = 0x77686b73; // "whks"
const COLUMNS = 'id, name, hook_url, secretkey, types, status_id, active, created_at, modified_at, signing_secret';

interface WebhookRow {
  id: string;
  name: string;
  hook_url: string;
  secretkey: string;
  types: string[];
  status_id: string | null;
  active: boolean;
  created_at: Date;
  modified_at: Date;
  signing_secret: string;
}

/** `whsec_` + base64 of 32 random bytes (Standard Webhooks). */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** Webhook registrations of an account (decisions.md "Webhooks"): admin only. */
@Injectable()
export class WebhooksService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly config: DispatcherConfig,
  ) {}

  async list(caller: Caller, payload: unknown): Promise<ListWebhooksReply> {
    assertAdmin(caller, ADMIN_ONLY);
    const { page, per_page } = parseContract(ListWebhooksRequest, payload);
    const [{ total }] = await this.dataSource.query('SELECT count(*)::int AS total FROM webhooks.webhooks WHERE account_id = $1', [
      caller.account_id,
    ]);
    const rows: WebhookRow[] = await this.dataSource.query(
      `SELECT ${COLUMNS} FROM webhooks.webhooks WHERE account_id = $1 ORDER BY created_at, id LIMIT $2 OFFSET $3`,
      [caller.account_id, per_page, (page - 1) * per_page],
    );
    return { webhooks: rows.map((row) => ({ webhook: toDto(row) })), ...pageInfo(total, page, per_page) };
  }

  async get(caller: Caller, payload: unknown): Promise<WebhookReply> {
    assertAdmin(caller, ADMIN_ONLY);
    const { webhook_id: id } = parseContract(WebhookIdRequest, payload);
    return { webhook: toDto(await this.find(caller.account_id, id)) };
  }

  /**
   * Registers a webhook: authorization, then the request's validation, then the account's cap
   * (WEBHOOK_MAX_PER_ACCOUNT), counted and inserted under a per-account lock so parallel
   * creations cannot pass it together.
   */
  async create(caller: Caller, payload: unknown): Promise<WebhookReply> {
    assertAdmin(caller, ADMIN_ONLY);
    const request = this.validated(parseContract(CreateWebhookRequest, payload));
    const id = newId();
    const max = this.config.WEBHOOK_MAX_PER_ACCOUNT;
    await this.dataSource.transaction(async (tx) => {
      await tx.query(`SELECT pg_advisory_xact_lock(${ACCOUNT_LOCK}, hashtext($1))`, [caller.account_id]);
      const [{ total }] = await tx.query('SELECT count(*)::int AS total FROM webhooks.webhooks WHERE account_id = $1', [caller.account_id]);
      if (total >= max) throw webhookLimitReached(max);
      await tx.query(
        'INSERT INTO webhooks.webhooks (name, hook_url, secretkey, types, status_id, active, id, account_id, signing_secret) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)',
        [...writableValues(request), id, caller.account_id, newSigningSecret()],
      );
    });
    return { webhook: toDto(await this.find(caller.account_id, id), true) };
  }

  async update(caller: Caller, payload: unknown): Promise<WebhookReply> {
    assertAdmin(caller, ADMIN_ONLY);
    const request = this.validated(parseContract(UpdateWebhookRequest, payload));
    const current = await this.find(caller.account_id, request.webhook_id);
    await this.dataSource.query(
      'UPDATE webhooks.webhooks SET name = $1, hook_url = $2, secretkey = $3, types = $4, status_id = $5, active = $6, modified_at = now() WHERE id = $7',
      [...writableValues(request), current.id],
    );
    if (current.active && !request.active) {
      // Switched off: what still waits for it is failed (a redelivery can send it once it is active again).
      await this.dataSource.query(
        `UPDATE webhooks.deliveries SET status = 'failed', next_attempt_at = NULL, completed_at = now(), last_error = 'webhook switched off' WHERE webhook_id = $1 AND status = 'pending' AND locked_by IS NULL`,
        [current.id],
      );
    }
    return { webhook: toDto(await this.find(caller.account_id, current.id)) };
  }

  async delete(caller: Caller, payload: unknown): Promise<Record<string, never>> {
    assertAdmin(caller, ADMIN_ONLY);
    const { webhook_id: id } = parseContract(WebhookIdRequest, payload);
    const current = await this.find(caller.account_id, id);
    await this.dataSource.query('DELETE FROM webhooks.webhooks WHERE id = $1', [current.id]);
    return {};
  }

  /** A new signing secret; the previous one keeps signing for 24 hours so receivers can switch. */
  async rotateSecret(caller: Caller, payload: unknown): Promise<WebhookReply> {
    assertAdmin(caller, ADMIN_ONLY);
    const { webhook_id: id } = parseContract(WebhookIdRequest, payload);
    const current = await this.find(caller.account_id, id);
    await this.dataSource.query(
      `UPDATE webhooks.webhooks SET previous_signing_secret = signing_secret, previous_secret_expires_at = now() + interval '${ROTATION_OVERLAP}', signing_secret = $1, modified_at = now() WHERE id = $2`,
      [newSigningSecret(), current.id],
    );
    return { webhook: toDto(await this.find(caller.account_id, current.id), true) };
  }

  private validated<T extends CreateWebhookRequest>(request: T): T {
    if (new Set(request.types).size !== request.types.length) throw ApiError.invalid({ types: 'lists each entity at most once' });
    if (!this.config.WEBHOOK_ALLOW_PRIVATE) {
      const problem = literalPrivateHost(request.hook_url);
      if (problem) throw ApiError.invalid({ hook_url: problem });
    }
    return request;
  }

  private async find(accountId: string, id: string): Promise<WebhookRow> {
    const normalized = id.toLowerCase();
    const rows: WebhookRow[] = isId(normalized)
      ? await this.dataSource.query(`SELECT ${COLUMNS} FROM webhooks.webhooks WHERE id = $1 AND account_id = $2`, [normalized, accountId])
      : [];
    if (!rows[0]) throw ApiError.notFound('Webhook not found');
    return rows[0];
  }
}

/** 400 naming the cap: the account already has `max` webhooks (decisions.md "Event pipeline and fan-out bounds"). */
export function webhookLimitReached(max: number): ApiError {
  return ApiError.invalid(
    { webhooks: `an account can have at most ${max} webhooks; delete one before registering another` },
    `This account already has the maximum of ${max} webhooks`,
  );
}

/** name, hook_url, secretkey, types, status_id, active: the writable columns, in that order. */
function writableValues(request: CreateWebhookRequest): unknown[] {
  return [request.name, request.hook_url, request.secretkey, request.types, request.status_id?.toLowerCase() ?? null, request.active];
}

function toDto(row: WebhookRow, withSecret = false): WebhookDto {
  const dto: WebhookDto = {
    id: row.id,
    name: row.name,
    hook_url: row.hook_url,
    secretkey: row.secretkey,
    types: row.types as WebhookDto['types'],
    status_id: row.status_id,
    active: row.active,
    created_at: new Date(row.created_at).toISOString(),
    modified_at: new Date(row.modified_at).toISOString(),
  };
  if (withSecret) dto.signing_secret = row.signing_secret;
  return dto;
}
