import type { PipelineDto } from '@crm/contracts';
import type { PipelineRow } from './pipelines.repository';

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
