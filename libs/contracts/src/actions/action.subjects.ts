/** Subjects of actions (issue 5): gateway -> crm-core; spread into {@link Subjects}. */
export const ActionSubjects = {
  ActionsList: 'crm.actions.list.v1',
  ActionsGet: 'crm.actions.get.v1',
  ActionsCreate: 'crm.actions.create.v1',
  ActionsUpdate: 'crm.actions.update.v1',
  ActionsDelete: 'crm.actions.delete.v1',
  ActionsMarkAsDone: 'crm.actions.mark-as-done.v1',
  ActionsUndoCompletion: 'crm.actions.undo-completion.v1',
  ActionsSwap: 'crm.actions.swap.v1',
  ActionsUnlink: 'crm.actions.unlink.v1',
  ActionsExternalUpsert: 'crm.actions.external-upsert.v1',
  ActionsUnassign: 'crm.actions.unassign.v1',
  ActionsPromote: 'crm.actions.promote.v1',
  ActionsRevertPromotion: 'crm.actions.revert-promotion.v1',
} as const;
