import { ApiError } from '@crm/contracts';
import type { EntityManager } from 'typeorm';
import { normalizeId } from '../records/record-common';

export interface PipelineRef {
  id: string;
  kind: 'pipeline' | 'sales';
  is_default: boolean;
  stages: Array<{ stage: number; label: string }>;
}

/** Stage of a new pending deal when none is sent: the pipeline's first stage (10 without stages). */
export function firstStageOf(pipeline: PipelineRef | undefined): number {
  const stages = (pipeline?.stages ?? []).map((s) => Number(s.stage)).filter((n) => Number.isInteger(n) && n > 0 && n < 100);
  return stages.length > 0 ? Math.min(...stages) : 10;
}

/** The pipeline ids a request names (404 for one that cannot be an id). */
function wantedPipelines(pipelineId?: string | null, salesPipelineId?: string | null): { pipeline: string | null; sales: string | null } {
  const wanted = {
    pipeline: pipelineId ? normalizeId(pipelineId) : null,
    sales: salesPipelineId ? normalizeId(salesPipelineId) : null,
  };
  if (pipelineId && !wanted.pipeline) throw ApiError.notFound('pipeline_id names no pipeline of the account');
  if (salesPipelineId && !wanted.sales) throw ApiError.notFound('sales_pipeline_id names no sales pipeline of the account');
  return wanted;
}

/** SQL selecting the candidate pipelines (the defaults and the ones named) of account `$<account>` as a JSON array. */
export function pipelinesJson(accountParam: string, idsParam: string): string {
  return `(SELECT coalesce(json_agg(json_build_object('id', p.id, 'kind', p.kind, 'is_default', p.is_default, 'stages', p.stages)), '[]'::json)
            FROM crm.pipelines p WHERE p.account_id = ${accountParam} AND (p.is_default OR p.id = ANY(${idsParam}::varchar[])))`;
}

/** The ids to pass for {@link pipelinesJson}'s `idsParam`. */
export function pipelineIdsParam(pipelineId?: string | null, salesPipelineId?: string | null): string[] {
  const wanted = wantedPipelines(pipelineId, salesPipelineId);
  return [wanted.pipeline, wanted.sales].filter((id): id is string => id !== null);
}

/** Picks the deal pipeline and sales pipeline from candidate rows: the ones named (404 unless of the right kind), else the defaults. */
export function pickPipelines(
  rows: readonly PipelineRef[],
  pipelineId?: string | null,
  salesPipelineId?: string | null,
): { pipeline: PipelineRef; sales: PipelineRef } {
  const wanted = wantedPipelines(pipelineId, salesPipelineId);
  const pick = (kind: 'pipeline' | 'sales', id: string | null): PipelineRef => {
    const found = id ? rows.find((r) => r.id === id && r.kind === kind) : rows.find((r) => r.kind === kind && r.is_default);
    if (!found)
      throw ApiError.notFound(
        kind === 'pipeline' ? 'pipeline_id names no pipeline of the account' : 'sales_pipeline_id names no sales pipeline of the account',
      );
    return found;
  };
  return {
    pipeline: pick('pipeline', wanted.pipeline),
    sales: pick('sales', wanted.sales),
  };
}

/**
 * The deal pipeline and sales pipeline a deal uses: the ones named (404 unless the account has
 * them, of the right kind), else the account's defaults (seeded with every account). One query.
 */
export async function resolvePipelines(
  m: EntityManager,
  accountId: string,
  pipelineId?: string | null,
  salesPipelineId?: string | null,
): Promise<{ pipeline: PipelineRef; sales: PipelineRef }> {
  const [row]: Array<{ pipelines: PipelineRef[] }> = await m.query(`SELECT ${pipelinesJson('$1', '$2')} AS pipelines`, [
    accountId,
    pipelineIdsParam(pipelineId, salesPipelineId),
  ]);
  return pickPipelines(row.pipelines, pipelineId, salesPipelineId);
}
