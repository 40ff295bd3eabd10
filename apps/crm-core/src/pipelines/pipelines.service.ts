import { Injectable } from '@nestjs/common';
import {
  CALL_RESULTS,
  pageInfo,
  type Caller,
  type CallResultDto,
  type PagedCallResultsReply,
  type ListCallResultsRequest,
  type ListPipelinesReply,
  type ListPipelinesRequest,
  type PipelineDto,
  type PipelineIdRequest,
  type PipelineReply,
} from '@crm/contracts';
import { DataSource } from 'typeorm';
import type { Db } from '../common/sql';
import { foundOr404 } from '../common/unique-violation';
import { toPipelineDto } from './pipeline.view';
import { SummaryService } from '../summary/summary.service';
import { PipelinesRepository } from './pipelines.repository';

/** Pipelines (read-only: every account has its defaults) and the fixed list of call results. */
@Injectable()
export class PipelinesService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly pipelines: PipelinesRepository,
    private readonly summary: SummaryService,
  ) {}

  async list(caller: Caller, request: ListPipelinesRequest): Promise<ListPipelinesReply> {
    const { page, per_page } = request;
    const db = this.dataSource.manager;
    const { total, rows } = await this.pipelines.page(db, caller.account_id, request, page, per_page);
    return { pipelines: rows.map((row) => ({ pipeline: toPipelineDto(row) })), ...pageInfo(total, page, per_page) };
  }

  /** Every pipeline of the account (bootstrap). */
  async all(db: Db, accountId: string): Promise<PipelineDto[]> {
    return (await this.pipelines.all(db, accountId)).map(toPipelineDto);
  }

  async get(caller: Caller, { pipeline_id }: PipelineIdRequest): Promise<PipelineReply> {
    const row = await foundOr404(
      pipeline_id,
      (id) => this.pipelines.find(this.dataSource.manager, caller.account_id, id),
      'Pipeline not found',
    );
    return { pipeline: toPipelineDto(row) };
  }

  /** The fixed call results with the account's counts of calls per result, as OnePageCRM's. */
  async callResults(caller: Caller, { page, per_page }: ListCallResultsRequest): Promise<PagedCallResultsReply> {
    const db = this.dataSource.manager;
    const [userIds, rows] = await Promise.all([
      this.summary.userIds(db, caller.account_id),
      this.pipelines.callResultCounts(db, caller.account_id),
    ]);
    // result -> author -> calls
    const byResult = new Map<string, Map<string, number>>();
    for (const { call_result, author_id, n } of rows) {
      let authors = byResult.get(call_result);
      if (!authors) byResult.set(call_result, (authors = new Map()));
      authors.set(author_id, n);
    }
    const entry = ({ id, text }: (typeof CALL_RESULTS)[number]): CallResultDto => {
      const authors = byResult.get(id) ?? new Map<string, number>();
      return {
        id,
        result: id,
        text,
        counts: authors.get(caller.user_id) ?? 0,
        total_counts: [...authors.values()].reduce((sum, n) => sum + n, 0),
        team_counts: userIds.map((user_id) => ({ user_id, counts: authors.get(user_id) ?? 0 })),
      };
    };
    const slice = CALL_RESULTS.slice((page - 1) * per_page, page * per_page);
    return { call_results: slice.map((result) => ({ call_result: entry(result) })), ...pageInfo(CALL_RESULTS.length, page, per_page) };
  }
}
