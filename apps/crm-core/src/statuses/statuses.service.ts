import { Injectable } from '@nestjs/common';
import { isId, newId } from '@crm/common';
import {
  ApiError,
  CreateStatusRequest,
  DEFAULT_STATUS_COLOR,
  ErrorName,
  ListStatusesRequest,
  PatchStatusRequest,
  StatusIdRequest,
  UpdateStatusRequest,
  pageInfo,
  parseContract,
  type Caller,
  type PageInfo,
  type StatusReply,
} from '@crm/contracts';
import { DataSource, type EntityManager } from 'typeorm';
import { assertAdmin } from '../common/assert-admin';
import { isUniqueViolation } from '../common/unique-violation';
import { writeEvent } from '../outbox/outbox';
import { accountCounts, accountUserIds } from '../summary/contact-counts';
import { statusCount, statusRow, statusRows, toStatusDto, type StatusRow } from './status.rows';

const NAME_INDEX = 'statuses_name_uq';

interface StatusChanges {
  status?: string;
  text?: string | null;
  description?: string | null;
  color?: string | null;
}

/** A status made or renamed without `text`: the first two letters of its name, in capitals. */
function defaultText(name: string): string {
  return (name.replace(/[^\p{L}\p{N}]/gu, '').slice(0, 2) || name.slice(0, 2)).toUpperCase();
}

/**
 * Statuses of an account (decisions.md "Configuration and users"): the built-in lead status and
 * the account's own; counts are aggregated on read. Writes are admin only.
 */
@Injectable()
export class StatusesService {
  constructor(private readonly dataSource: DataSource) {}

  async list(caller: Caller, payload: unknown): Promise<PageInfo & { statuses: StatusReply[] }> {
    const request = parseContract(ListStatusesRequest, payload);
    const { page, per_page } = request;
    return this.dataSource.transaction('REPEATABLE READ', async (m) => {
      const total = await statusCount(m, caller.account_id, request);
      const rows = await statusRows(m, caller.account_id, per_page, (page - 1) * per_page, request);
      const replies = await this.withCounts(m, caller, rows);
      return { statuses: replies, ...pageInfo(total, page, per_page) };
    });
  }

  async get(caller: Caller, payload: unknown): Promise<StatusReply> {
    const { status_id } = parseContract(StatusIdRequest, payload);
    return this.dataSource.transaction('REPEATABLE READ', async (m) => {
      const [reply] = await this.withCounts(m, caller, [await this.find(m, caller.account_id, status_id)]);
      return reply;
    });
  }

  async create(caller: Caller, payload: unknown): Promise<StatusReply> {
    assertAdmin(caller);
    const request = parseContract(CreateStatusRequest, payload);
    const id = newId();
    return this.unique(() =>
      this.dataSource.transaction(async (m) => {
        await m.query(
          `INSERT INTO crm.statuses (id, account_id, status, text, description, color, position)
           VALUES ($1, $2::varchar, $3, $4, $5, $6, (SELECT coalesce(max(position), -1) + 1 FROM crm.statuses WHERE account_id = $2::varchar))`,
          [
            id,
            caller.account_id,
            request.status,
            request.text ?? defaultText(request.status),
            request.description ?? '',
            request.color ?? DEFAULT_STATUS_COLOR,
          ],
        );
        const [reply] = await this.withCounts(m, caller, [await this.find(m, caller.account_id, id)]);
        return reply;
      }),
    );
  }

  /** PUT: absent text, description, color go back to their defaults; with partial=true only what is sent changes. */
  async update(caller: Caller, payload: unknown): Promise<StatusReply> {
    assertAdmin(caller);
    const request = parseContract(UpdateStatusRequest, payload);
    const { status_id, partial, ...fields } = request;
    if (partial) return this.change(caller, status_id, fields);
    return this.change(caller, status_id, {
      status: fields.status,
      text: fields.text ?? null,
      description: fields.description ?? null,
      color: fields.color ?? null,
    });
  }

  async patch(caller: Caller, payload: unknown): Promise<StatusReply> {
    assertAdmin(caller);
    const { status_id, ...fields } = parseContract(PatchStatusRequest, payload);
    return this.change(caller, status_id, fields);
  }

  /**
   * Deletes a status: in one transaction its contacts (soft-deleted ones too) and the companies
   * syncing it fall back to the lead status, the status goes, and an internal `status`/`deleted`
   * event tells the webhook dispatcher to move its webhooks to the lead status.
   */
  async delete(caller: Caller, payload: unknown): Promise<Record<string, never>> {
    assertAdmin(caller);
    const { status_id } = parseContract(StatusIdRequest, payload);
    await this.dataSource.transaction(async (m) => {
      // The lock makes contacts created with this status meanwhile either commit first (and move) or fail their key check.
      const status = await this.find(m, caller.account_id, status_id, true);
      if (status.is_lead)
        throw ApiError.invalid({ status_id: 'the built-in lead status cannot be deleted' }, 'The lead status cannot be deleted');
      const [lead] = await m.query('SELECT id FROM crm.statuses WHERE account_id = $1 AND is_lead', [caller.account_id]);
      await m.query('UPDATE crm.contacts SET status_id = $1, modified_at = now() WHERE account_id = $2 AND status_id = $3', [
        lead.id,
        caller.account_id,
        status.id,
      ]);
      await m.query('UPDATE crm.companies SET synced_status_id = $1, modified_at = now() WHERE account_id = $2 AND synced_status_id = $3', [
        lead.id,
        caller.account_id,
        status.id,
      ]);
      await m.query('DELETE FROM crm.statuses WHERE id = $1', [status.id]);
      await writeEvent(m, {
        account_id: caller.account_id,
        type: 'status',
        reason: 'deleted',
        record_id: status.id,
        data: { status: { id: status.id }, lead_status_id: lead.id },
      });
    });
    return {};
  }

  private change(caller: Caller, statusId: string, changes: StatusChanges): Promise<StatusReply> {
    return this.unique(() =>
      this.dataSource.transaction(async (m) => {
        const current = await this.find(m, caller.account_id, statusId, true);
        const status = changes.status ?? current.status;
        const next = {
          status,
          text: changes.text === undefined ? current.text : (changes.text ?? defaultText(status)),
          description: changes.description === undefined ? current.description : (changes.description ?? ''),
          color: changes.color === undefined ? current.color : (changes.color ?? DEFAULT_STATUS_COLOR),
        };
        if (
          next.status !== current.status ||
          next.text !== current.text ||
          next.description !== current.description ||
          next.color !== current.color
        ) {
          await m.query('UPDATE crm.statuses SET status = $1, text = $2, description = $3, color = $4, modified_at = now() WHERE id = $5', [
            next.status,
            next.text,
            next.description,
            next.color,
            current.id,
          ]);
        }
        const [reply] = await this.withCounts(m, caller, [{ ...current, ...next }]);
        return reply;
      }),
    );
  }

  private async withCounts(m: EntityManager, caller: Caller, rows: StatusRow[]): Promise<StatusReply[]> {
    if (rows.length === 0) return [];
    const userIds = await accountUserIds(m, caller.account_id);
    const counts = await accountCounts(m, caller.account_id, caller.user_id);
    return rows.map((row) => ({ status: toStatusDto(row, counts.byStatus.get(row.id), userIds) }));
  }

  private async find(m: EntityManager, accountId: string, statusId: string, lock = false): Promise<StatusRow> {
    const id = statusId.toLowerCase();
    const row = isId(id) ? await statusRow(m, accountId, id, lock) : undefined;
    if (!row) throw ApiError.notFound('Status not found');
    return row;
  }

  private async unique<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (error) {
      if (isUniqueViolation(error, NAME_INDEX))
        throw new ApiError(ErrorName.DuplicatedEntity, 'A status with this name already exists', {
          status: 'is already the name of a status of the account',
        });
      throw error;
    }
  }
}
