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
  type WebhookReply,
} from '@crm/contracts';
import { DataSource } from 'typeorm';
import { DispatcherConfig } from '../config/dispatcher.config';
import { assertWebhookAllowed, newSigningSecret, ROTATION_OVERLAP, webhookLimitReached, webhookWrite } from './webhook.rules';
import { toWebhookDto } from './webhook.view';
import { WebhooksRepository, type WebhookRow } from './webhooks.repository';

const ADMIN_ONLY = 'Only account administrators can manage webhooks';

/** Webhook registrations of an account (decisions.md "Webhooks"): admin only. */
@Injectable()
export class WebhooksService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly repository: WebhooksRepository,
    private readonly config: DispatcherConfig,
  ) {}

  private get db() {
    return this.dataSource.manager;
  }

  async list(caller: Caller, payload: unknown): Promise<ListWebhooksReply> {
    assertAdmin(caller, ADMIN_ONLY);
    const { page, per_page } = parseContract(ListWebhooksRequest, payload);
    const total = await this.repository.count(this.db, caller.account_id);
    const rows = await this.repository.page(this.db, caller.account_id, per_page, (page - 1) * per_page);
    return { webhooks: rows.map((row) => ({ webhook: toWebhookDto(row) })), ...pageInfo(total, page, per_page) };
  }

  async get(caller: Caller, payload: unknown): Promise<WebhookReply> {
    assertAdmin(caller, ADMIN_ONLY);
    const { webhook_id: id } = parseContract(WebhookIdRequest, payload);
    return { webhook: toWebhookDto(await this.find(caller.account_id, id)) };
  }

  /**
   * Registers a webhook: authorization, then the request's validation, then the account's cap
   * (WEBHOOK_MAX_PER_ACCOUNT), counted and inserted under a per-account lock so parallel
   * creations cannot pass it together.
   */
  async create(caller: Caller, payload: unknown): Promise<WebhookReply> {
    assertAdmin(caller, ADMIN_ONLY);
    const request = parseContract(CreateWebhookRequest, payload);
    assertWebhookAllowed(request, this.config.WEBHOOK_ALLOW_PRIVATE);
    const id = newId();
    const max = this.config.WEBHOOK_MAX_PER_ACCOUNT;
    await this.dataSource.transaction(async (tx) => {
      await this.repository.lockAccount(tx, caller.account_id);
      if ((await this.repository.count(tx, caller.account_id)) >= max) throw webhookLimitReached(max);
      await this.repository.insert(tx, { ...webhookWrite(request), id, account_id: caller.account_id, signing_secret: newSigningSecret() });
    });
    return { webhook: toWebhookDto(await this.find(caller.account_id, id), true) };
  }

  /** Replaces the webhook's settings; switched off, what still waits for it is failed in the same transaction. */
  async update(caller: Caller, payload: unknown): Promise<WebhookReply> {
    assertAdmin(caller, ADMIN_ONLY);
    const request = parseContract(UpdateWebhookRequest, payload);
    assertWebhookAllowed(request, this.config.WEBHOOK_ALLOW_PRIVATE);
    const current = await this.find(caller.account_id, request.webhook_id);
    await this.dataSource.transaction(async (tx) => {
      await this.repository.update(tx, current.id, webhookWrite(request));
      // A redelivery can send them once it is active again.
      if (current.active && !request.active) await this.repository.failPendingDeliveries(tx, current.id, 'webhook switched off');
    });
    return { webhook: toWebhookDto(await this.find(caller.account_id, current.id)) };
  }

  async delete(caller: Caller, payload: unknown): Promise<Record<string, never>> {
    assertAdmin(caller, ADMIN_ONLY);
    const { webhook_id: id } = parseContract(WebhookIdRequest, payload);
    const current = await this.find(caller.account_id, id);
    await this.repository.delete(this.db, current.id);
    return {};
  }

  /** A new signing secret; the previous one keeps signing for 24 hours so receivers can switch. */
  async rotateSecret(caller: Caller, payload: unknown): Promise<WebhookReply> {
    assertAdmin(caller, ADMIN_ONLY);
    const { webhook_id: id } = parseContract(WebhookIdRequest, payload);
    const current = await this.find(caller.account_id, id);
    await this.repository.rotateSecret(this.db, current.id, newSigningSecret(), ROTATION_OVERLAP);
    return { webhook: toWebhookDto(await this.find(caller.account_id, current.id), true) };
  }

  /** The account's webhook, or 404 (another account's, or an id that cannot be one). */
  private async find(accountId: string, id: string): Promise<WebhookRow> {
    const normalized = id.toLowerCase();
    const row = isId(normalized) ? await this.repository.find(this.db, accountId, normalized) : undefined;
    if (!row) throw ApiError.notFound('Webhook not found');
    return row;
  }
}
