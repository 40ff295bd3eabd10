/** Subjects of notes (issue 5): gateway -> crm-core; spread into {@link Subjects}. */
export const NoteSubjects = {
  NotesList: 'crm.notes.list.v1',
  NotesGet: 'crm.notes.get.v1',
  NotesCreate: 'crm.notes.create.v1',
  NotesUpdate: 'crm.notes.update.v1',
  NotesDelete: 'crm.notes.delete.v1',
} as const;
