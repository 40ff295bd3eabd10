/** Subjects of meetings (issue 5): gateway -> crm-core; spread into {@link Subjects}. */
export const MeetingSubjects = {
  MeetingsList: 'crm.meetings.list.v1',
  MeetingsGet: 'crm.meetings.get.v1',
  MeetingsCreate: 'crm.meetings.create.v1',
  MeetingsUpdate: 'crm.meetings.update.v1',
  MeetingsDelete: 'crm.meetings.delete.v1',
} as const;
