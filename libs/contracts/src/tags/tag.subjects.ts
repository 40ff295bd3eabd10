/** Subjects of tags: gateway -> crm-core; spread into {@link Subjects}. */
export const TagSubjects = {
  TagsList: 'crm.tags.list.v1',
  TagsDelete: 'crm.tags.delete.v1',
} as const;
