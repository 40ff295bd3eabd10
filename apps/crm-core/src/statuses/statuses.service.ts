import { Injectable } from '@nestjs/common';
import { newId } from '@crm/common';
import {
  ApiError,
  pageInfo,
  type Caller,
  type CreateStatusRequest,
  type ListStatusesRequest,
  type PagedStatusesReply,
  type PatchStatusRequest,
  type StatusIdRequest,
  type StatusReply,
  type UpdateStatusRequest,
} from '@crm/contracts';
import { DataSource } from 'typeorm';
import { assertAdmin } from '../common/assert-admin';
import type { Db } from '../common/sql';
import { foundOr404, uniqueName } from '../common/unique-violation';
import { writeEvent } from '../outbox/outbox';
import { SummaryService } from '../summary/summary.service';
import {
  assertSameKey,
  changedStatusValues,
  customStatusKey,
  newStatusValues,
  replacementChanges,
  statusValuesDiffer,
  type StatusChanges,
} from './status.rules';
import { toStatusDto } from './status.view';
import { StatusesRepository, type StatusRow } from './statuses.repository';

const NAME_INDEX = 'statuses_text_uq';

/**
 * Statuses of an account (decisions.md "Configuration and users"): the built-in lead status and
 * the account's own; counts are aggregated on read. Writes are admin only.
 */
@Injectable()
export class StatusesService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly statuses: StatusesRepository,
    private readonly summary: SummaryService,
  ) {}

  async list(caller: Caller, request: ListStatusesRequest): Promise<PagedStatusesReply> {
    const { page, per_page } = request;
    return this.dataSource.transaction('REPEATABLE READ', async (tx) => {
      const { total, rows } = await this.statuses.page(tx, caller.account_id, request, page, per_page);
      return { statuses: await this.withCounts(tx, caller, rows), ...pageInfo(total, page, per_page) };
    });
  }

  async get(caller: Caller, { status_id }: StatusIdRequest): Promise<StatusReply> {
    return this.dataSource.transaction('REPEATABLE READ', async (tx) => {
      const [reply] = await this.withCounts(tx, caller, [await this.find(tx, caller.account_id, status_id)]);
      return reply;
    });
  }

  async create(caller: Caller, request: CreateStatusRequest): Promise<StatusReply> {
    assertAdmin(caller);
    const id = newId();
    return this.unique(() =>
      this.dataSource.transaction(async (tx) => {
        const values = newStatusValues(request);
        const key = customStatusKey(await this.statuses.nextCustomNumber(tx, caller.account_id));
        await this.statuses.insert(tx, caller.account_id, id, key, values);
        const [reply] = await this.withCounts(tx, caller, [await this.find(tx, caller.account_id, id)]);
        return reply;
      }),
    );
  }

  /** PUT: absent description and color go back to their defaults; with partial=true only what is sent changes. */
  async update(caller: Caller, request: UpdateStatusRequest): Promise<StatusReply> {
    assertAdmin(caller);
    const { status_id, partial, status, ...fields } = request;
    return this.change(caller, status_id, status, partial ? fields : replacementChanges(fields));
  }

  async patch(caller: Caller, request: PatchStatusRequest): Promise<StatusReply> {
    assertAdmin(caller);
    const { status_id, status, ...fields } = request;
    return this.change(caller, status_id, status, fields);
  }

  /**
   * Deletes a status: in one transaction its contacts (soft-deleted ones too) and the companies
   * syncing it fall back to the lead status, the status goes, and an internal `status`/`deleted`
   * event tells the webhook dispatcher to move its webhooks to the lead status.
   */
  async delete(caller: Caller, { status_id }: StatusIdRequest): Promise<Record<string, never>> {
    assertAdmin(caller);
    await this.dataSource.transaction(async (tx) => {
      // The lock makes contacts created with this status meanwhile either commit first (and move) or fail their key check.
      const status = await this.find(tx, caller.account_id, status_id, true);
      if (status.is_lead)
        throw ApiError.invalid({ status_id: 'the built-in lead status cannot be deleted' }, 'The lead status cannot be deleted');
      const leadId = await this.statuses.leadStatusId(tx, caller.account_id);
      await this.statuses.deleteMovingTo(tx, caller.account_id, status.id, leadId);
      await writeEvent(tx, {
        account_id: caller.account_id,
        type: 'status',
        reason: 'deleted',
        record_id: status.id,
        data: { status: { id: status.id }, lead_status_id: leadId },
      });
    });
    return {};
  }

  /** Changes text, description, color; `key` (the body's `status`) may only repeat the current type key. */
  private change(caller: Caller, statusId: string, key: string | undefined, changes: StatusChanges): Promise<StatusReply> {
    return this.unique(() =>
      this.dataSource.transaction(async (tx) => {
        const current = await this.find(tx, caller.account_id, statusId, true);
        assertSameKey(current.status, key);
        const next = changedStatusValues(current, changes);
        if (statusValuesDiffer(current, next)) await this.statuses.update(tx, current.id, next);
        const [reply] = await this.withCounts(tx, caller, [{ ...current, ...next }]);
        return reply;
      }),
    );
  }

  private async withCounts(db: Db, caller: Caller, rows: StatusRow[]): Promise<StatusReply[]> {
    if (rows.length === 0) return [];
    const { userIds, counts } = await this.summary.counts(db, caller);
    return rows.map((row) => ({ status: toStatusDto(row, counts.byStatus.get(row.id), userIds, caller.user_id) }));
  }

  private find(db: Db, accountId: string, statusId: string, lock = false): Promise<StatusRow> {
    return foundOr404(statusId, (id) => this.statuses.find(db, accountId, id, lock), 'Status not found');
  }

  private unique<T>(fn: () => Promise<T>): Promise<T> {
    return uniqueName(NAME_INDEX, 'a status', 'text', fn);
  }
}
