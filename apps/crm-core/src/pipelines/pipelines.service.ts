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
import { PipelinesRepository } from './pipelines.repository';

/** Pipelines (read-only: every account has its defaults) and the fixed list of call results. */
@Injectable()
export class PipelinesService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly pipelines: PipelinesRepository,
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
    const slice = CALL_RESULTS.slice((page - 1) * per_page, page * per_page);
    const { user_ids, counts } = await this.pipelines.callResultCounts(this.dataSource.manager, caller.account_id);
    const entry = ({ id, text }: (typeof CALL_RESULTS)[number]): CallResultDto => {
      const mine = counts.filter((c) => c.call_result === id);
      const of = (userId: string) => mine.find((c) => c.author_id === userId)?.n ?? 0;
      return {
        id,
        result: id,
        text,
        counts: of(caller.user_id),
        total_counts: mine.reduce((sum, c) => sum + c.n, 0),
        team_counts: user_ids.map((user_id) => ({ user_id, counts: of(user_id) })),
      };
    };
    return { call_results: slice.map((result) => ({ call_result: entry(result) })), ...pageInfo(CALL_RESULTS.length, page, per_page) };
  }
}
