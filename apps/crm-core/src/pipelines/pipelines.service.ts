import { Injectable } from '@nestjs/common';
import { isId } from '@crm/common';
import {
  ApiError,
  CALL_RESULTS,
  ListCallResultsRequest,
  ListPipelinesRequest,
  PipelineIdRequest,
  pageInfo,
  parseContract,
  type Caller,
  type ListCallResultsReply,
  type ListPipelinesReply,
  type PipelineDto,
  type PipelineReply,
} from '@crm/contracts';
import { DataSource, type EntityManager } from 'typeorm';
import { accountTimeWhere } from '../records/time-filters';

interface PipelineRow {
  id: string;
  name: string;
  kind: 'pipeline' | 'sales';
  is_default: boolean;
  won_column_enabled: boolean;
  won_column_name: string;
  stages: Array<{ stage: number; label: string }>;
  created_at: Date;
  modified_at: Date;
}

const SELECT = 'SELECT id, name, kind, is_default, won_column_enabled, won_column_name, stages, created_at, modified_at FROM crm.pipelines';
/** Deal pipelines first, then sales pipelines; the default of each first. */
const ORDER = "ORDER BY (kind = 'sales'), is_default DESC, created_at, id";

export function toPipelineDto(row: PipelineRow): PipelineDto {
  return {
    id: row.id,
    name: row.name,
    type: row.kind === 'sales' ? 'sales_pipeline' : 'pipeline',
    default: row.is_default,
    won_column_enabled: row.won_column_enabled,
    won_column_name: row.won_column_name,
    stages: [...row.stages].sort((a, b) => a.stage - b.stage),
    created_at: new Date(row.created_at).toISOString(),
    modified_at: new Date(row.modified_at).toISOString(),
  };
}

/** Pipelines (read-only: every account has its defaults) and the fixed list of call results. */
@Injectable()
export class PipelinesService {
  constructor(private readonly dataSource: DataSource) {}

  async list(caller: Caller, payload: unknown): Promise<ListPipelinesReply> {
    const request = parseContract(ListPipelinesRequest, payload);
    const { page, per_page } = request;
    const { where, params } = accountTimeWhere(caller.account_id, request, 'p');
    const [{ total }] = await this.dataSource.query(`SELECT count(*)::int AS total FROM crm.pipelines p WHERE ${where}`, params);
    const n = params.length;
    const rows: PipelineRow[] = await this.dataSource.query(`${SELECT} p WHERE ${where} ${ORDER} LIMIT $${n + 1} OFFSET $${n + 2}`, [
      ...params,
      per_page,
      (page - 1) * per_page,
    ]);
    return { pipelines: rows.map((row) => ({ pipeline: toPipelineDto(row) })), ...pageInfo(total, page, per_page) };
  }

  /** Every pipeline of the account (bootstrap). */
  async all(m: EntityManager, accountId: string): Promise<PipelineDto[]> {
    const rows: PipelineRow[] = await m.query(`${SELECT} WHERE account_id = $1 ${ORDER}`, [accountId]);
    return rows.map(toPipelineDto);
  }

  async get(caller: Caller, payload: unknown): Promise<PipelineReply> {
    const { pipeline_id } = parseContract(PipelineIdRequest, payload);
    const id = pipeline_id.toLowerCase();
    const [row]: PipelineRow[] = isId(id)
      ? await this.dataSource.query(`${SELECT} WHERE id = $1 AND account_id = $2`, [id, caller.account_id])
      : [];
    if (!row) throw ApiError.notFound('Pipeline not found');
    return { pipeline: toPipelineDto(row) };
  }

  callResults(_caller: Caller, payload: unknown): ListCallResultsReply {
    const { page, per_page } = parseContract(ListCallResultsRequest, payload);
    const slice = CALL_RESULTS.slice((page - 1) * per_page, page * per_page);
    return { call_results: slice.map((result) => ({ call_result: { ...result } })), ...pageInfo(CALL_RESULTS.length, page, per_page) };
  }
}
