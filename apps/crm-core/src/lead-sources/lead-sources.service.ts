import { Injectable } from '@nestjs/common';
import { isId, newId } from '@crm/common';
import {
  ApiError,
  CreateLeadSourceRequest,
  ErrorName,
  LeadSourceIdRequest,
  ListLeadSourcesRequest,
  PatchLeadSourceRequest,
  UpdateLeadSourceRequest,
  pageInfo,
  parseContract,
  type Caller,
  type LeadSourceReply,
  type PageInfo,
} from '@crm/contracts';
import { DataSource, type EntityManager } from 'typeorm';
import { assertAdmin } from '../common/assert-admin';
import { isUniqueViolation } from '../common/unique-violation';
import { accountCounts, accountUserIds } from '../summary/contact-counts';
import { leadSourceCount, leadSourceRow, leadSourceRows, toLeadSourceDto, type LeadSourceRow } from './lead-source.rows';

const NAME_INDEX = 'lead_sources_name_uq';

/** Lead sources of an account, with counts aggregated on read. Writes are admin only. */
@Injectable()
export class LeadSourcesService {
  constructor(private readonly dataSource: DataSource) {}

  async list(caller: Caller, payload: unknown): Promise<PageInfo & { lead_sources: LeadSourceReply[] }> {
    const request = parseContract(ListLeadSourcesRequest, payload);
    const { page, per_page } = request;
    return this.dataSource.transaction('REPEATABLE READ', async (m) => {
      const total = await leadSourceCount(m, caller.account_id, request);
      const rows = await leadSourceRows(m, caller.account_id, per_page, (page - 1) * per_page, request);
      return { lead_sources: await this.withCounts(m, caller, rows), ...pageInfo(total, page, per_page) };
    });
  }

  async get(caller: Caller, payload: unknown): Promise<LeadSourceReply> {
    const { lead_source_id } = parseContract(LeadSourceIdRequest, payload);
    return this.dataSource.transaction('REPEATABLE READ', async (m) => {
      const [reply] = await this.withCounts(m, caller, [await this.find(m, caller.account_id, lead_source_id)]);
      return reply;
    });
  }

  async create(caller: Caller, payload: unknown): Promise<LeadSourceReply> {
    assertAdmin(caller);
    const { text } = parseContract(CreateLeadSourceRequest, payload);
    const id = newId();
    return this.unique(() =>
      this.dataSource.transaction(async (m) => {
        await m.query(
          'INSERT INTO crm.lead_sources (id, account_id, text, position) VALUES ($1, $2::varchar, $3, (SELECT coalesce(max(position), -1) + 1 FROM crm.lead_sources WHERE account_id = $2::varchar))',
          [id, caller.account_id, text],
        );
        const [reply] = await this.withCounts(m, caller, [await this.find(m, caller.account_id, id)]);
        return reply;
      }),
    );
  }

  async update(caller: Caller, payload: unknown): Promise<LeadSourceReply> {
    assertAdmin(caller);
    const { lead_source_id, text } = parseContract(UpdateLeadSourceRequest, payload);
    return this.rename(caller, lead_source_id, text);
  }

  async patch(caller: Caller, payload: unknown): Promise<LeadSourceReply> {
    assertAdmin(caller);
    const { lead_source_id, text } = parseContract(PatchLeadSourceRequest, payload);
    return this.rename(caller, lead_source_id, text);
  }

  /** Deletes a lead source; its contacts are left without one (their modified_at moves). */
  async delete(caller: Caller, payload: unknown): Promise<Record<string, never>> {
    assertAdmin(caller);
    const { lead_source_id } = parseContract(LeadSourceIdRequest, payload);
    await this.dataSource.transaction(async (m) => {
      const source = await this.find(m, caller.account_id, lead_source_id, true);
      await m.query('UPDATE crm.contacts SET lead_source_id = NULL, modified_at = now() WHERE account_id = $1 AND lead_source_id = $2', [
        caller.account_id,
        source.id,
      ]);
      await m.query('DELETE FROM crm.lead_sources WHERE id = $1', [source.id]);
    });
    return {};
  }

  private rename(caller: Caller, leadSourceId: string, text: string | undefined): Promise<LeadSourceReply> {
    return this.unique(() =>
      this.dataSource.transaction(async (m) => {
        const current = await this.find(m, caller.account_id, leadSourceId, true);
        if (text !== undefined && text !== current.text) {
          await m.query('UPDATE crm.lead_sources SET text = $1, modified_at = now() WHERE id = $2', [text, current.id]);
        }
        const [reply] = await this.withCounts(m, caller, [{ ...current, text: text ?? current.text }]);
        return reply;
      }),
    );
  }

  private async withCounts(m: EntityManager, caller: Caller, rows: LeadSourceRow[]): Promise<LeadSourceReply[]> {
    if (rows.length === 0) return [];
    const userIds = await accountUserIds(m, caller.account_id);
    const counts = await accountCounts(m, caller.account_id, caller.user_id);
    return rows.map((row) => ({ lead_source: toLeadSourceDto(row, counts.byLeadSource.get(row.id), userIds) }));
  }

  private async find(m: EntityManager, accountId: string, leadSourceId: string, lock = false): Promise<LeadSourceRow> {
    const id = leadSourceId.toLowerCase();
    const row = isId(id) ? await leadSourceRow(m, accountId, id, lock) : undefined;
    if (!row) throw ApiError.notFound('Lead source not found');
    return row;
  }

  private async unique<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (error) {
      if (isUniqueViolation(error, NAME_INDEX))
        throw new ApiError(ErrorName.DuplicatedEntity, 'A lead source with this name already exists', {
          text: 'is already the name of a lead source of the account',
        });
      throw error;
    }
  }
}
