import { Injectable } from '@nestjs/common';
import { newId } from '@crm/common';
import {
  pageInfo,
  type Caller,
  type CreateLeadSourceRequest,
  type LeadSourceIdRequest,
  type LeadSourceReply,
  type PagedLeadSourcesReply,
  type ListLeadSourcesRequest,
  type PatchLeadSourceRequest,
  type UpdateLeadSourceRequest,
} from '@crm/contracts';
import { DataSource } from 'typeorm';
import { assertAdmin } from '../common/assert-admin';
import type { Db } from '../common/sql';
import { foundOr404, uniqueName } from '../common/unique-violation';
import { SummaryService } from '../summary/summary.service';
import { toLeadSourceDto } from './lead-source.view';
import { LeadSourcesRepository, type LeadSourceRow } from './lead-sources.repository';

const NAME_INDEX = 'lead_sources_name_uq';

/** Lead sources of an account, with counts aggregated on read. Writes are admin only. */
@Injectable()
export class LeadSourcesService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly leadSources: LeadSourcesRepository,
    private readonly summary: SummaryService,
  ) {}

  async list(caller: Caller, request: ListLeadSourcesRequest): Promise<PagedLeadSourcesReply> {
    const { page, per_page } = request;
    return this.dataSource.transaction('REPEATABLE READ', async (tx) => {
      const { total, rows } = await this.leadSources.page(tx, caller.account_id, request, page, per_page);
      const lead_sources = (await this.withCounts(tx, caller, rows)).map((lead_source) => ({ lead_source }));
      return { lead_sources, ...pageInfo(total, page, per_page) };
    });
  }

  async get(caller: Caller, { lead_source_id }: LeadSourceIdRequest): Promise<LeadSourceReply> {
    return this.dataSource.transaction('REPEATABLE READ', async (tx) => {
      const [reply] = await this.withCounts(tx, caller, [await this.find(tx, caller.account_id, lead_source_id)]);
      return reply;
    });
  }

  async create(caller: Caller, { text }: CreateLeadSourceRequest): Promise<LeadSourceReply> {
    assertAdmin(caller);
    const id = newId();
    return this.unique(() =>
      this.dataSource.transaction(async (tx) => {
        await this.leadSources.insert(tx, caller.account_id, id, text);
        const [reply] = await this.withCounts(tx, caller, [await this.find(tx, caller.account_id, id)]);
        return reply;
      }),
    );
  }

  async update(caller: Caller, { lead_source_id, text }: UpdateLeadSourceRequest): Promise<LeadSourceReply> {
    assertAdmin(caller);
    return this.rename(caller, lead_source_id, text);
  }

  async patch(caller: Caller, { lead_source_id, text }: PatchLeadSourceRequest): Promise<LeadSourceReply> {
    assertAdmin(caller);
    return this.rename(caller, lead_source_id, text);
  }

  /** Deletes a lead source; its contacts are left without one (their modified_at moves). */
  async delete(caller: Caller, { lead_source_id }: LeadSourceIdRequest): Promise<Record<string, never>> {
    assertAdmin(caller);
    await this.dataSource.transaction(async (tx) => {
      const source = await this.find(tx, caller.account_id, lead_source_id, true);
      await this.leadSources.delete(tx, caller.account_id, source.id);
    });
    return {};
  }

  private rename(caller: Caller, leadSourceId: string, text: string | undefined): Promise<LeadSourceReply> {
    return this.unique(() =>
      this.dataSource.transaction(async (tx) => {
        const current = await this.find(tx, caller.account_id, leadSourceId, true);
        if (text !== undefined && text !== current.text) await this.leadSources.rename(tx, current.id, text);
        const [reply] = await this.withCounts(tx, caller, [{ ...current, text: text ?? current.text }]);
        return reply;
      }),
    );
  }

  private async withCounts(db: Db, caller: Caller, rows: LeadSourceRow[]): Promise<LeadSourceReply[]> {
    if (rows.length === 0) return [];
    const { userIds, counts } = await this.summary.counts(db, caller);
    return rows.map((row) => toLeadSourceDto(row, counts.byLeadSource.get(row.id), userIds, caller.user_id));
  }

  private find(db: Db, accountId: string, leadSourceId: string, lock = false): Promise<LeadSourceRow> {
    return foundOr404(leadSourceId, (id) => this.leadSources.find(db, accountId, id, lock), 'Lead source not found');
  }

  private unique<T>(fn: () => Promise<T>): Promise<T> {
    return uniqueName(NAME_INDEX, 'a lead source', 'text', fn);
  }
}
