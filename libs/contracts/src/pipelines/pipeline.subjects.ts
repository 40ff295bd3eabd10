/** Subjects of pipelines: gateway -> crm-core; spread into {@link Subjects}. */
export const PipelineSubjects = {
  PipelinesList: 'crm.pipelines.list.v1',
  PipelinesGet: 'crm.pipelines.get.v1',
} as const;
