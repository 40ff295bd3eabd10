import type { PipelineDto } from '@crm/contracts';
import type { PipelineRow } from './pipelines.repository';
import { isoOf } from '../records/record-common';

export function toPipelineDto(row: PipelineRow): PipelineDto {
  return {
    id: row.id,
    name: row.name,
    type: row.kind === 'sales' ? 'sales_pipeline' : 'pipeline',
    default: row.is_default,
    won_column_enabled: row.won_column_enabled,
    won_column_name: row.won_column_name,
    stages: [...row.stages].sort((a, b) => a.stage - b.stage),
    created_at: isoOf(row.created_at),
    modified_at: isoOf(row.modified_at),
  };
}
