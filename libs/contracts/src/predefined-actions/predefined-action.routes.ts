import type { RouteDeclaration } from '../routes/route-declaration';
import {
  CreatePredefinedActionGroupRequest,
  CreatePredefinedActionRequest,
  ListPredefinedActionGroupsRequest,
  ListPredefinedActionsRequest,
  PredefinedActionGroupIdRequest,
  PredefinedActionIdRequest,
} from './predefined-action.requests';
import { PredefinedActionSubjects } from './predefined-action.subjects';

const tag = 'Predefined actions';
const actions = '/predefined_actions';
const action = '/predefined_actions/{predefined_action_id}';
const groups = '/predefined_action_groups';
const group = '/predefined_action_groups/{predefined_action_group_id}';

/** Predefined actions and their groups (issue 4; decisions.md "Configuration and users"). */
export const PREDEFINED_ACTION_ROUTES: readonly RouteDeclaration[] = [
  {
    operationId: 'listPredefinedActions',
    method: 'GET',
    path: actions,
    subject: PredefinedActionSubjects.PredefinedActionsList,
    access: 'read',
    request: ListPredefinedActionsRequest,
    successStatus: 200,
    summary: "List the account's predefined actions",
    tag,
  },
  {
    operationId: 'createPredefinedAction',
    method: 'POST',
    path: actions,
    subject: PredefinedActionSubjects.PredefinedActionsCreate,
    access: 'write',
    adminOnly: true,
    request: CreatePredefinedActionRequest,
    successStatus: 201,
    summary: 'Create a predefined action template (admin only)',
    tag,
  },
  {
    operationId: 'getPredefinedAction',
    method: 'GET',
    path: action,
    subject: PredefinedActionSubjects.PredefinedActionsGet,
    access: 'read',
    request: PredefinedActionIdRequest,
    successStatus: 200,
    summary: 'Get a predefined action',
    tag,
  },
  {
    operationId: 'deletePredefinedAction',
    method: 'DELETE',
    path: action,
    subject: PredefinedActionSubjects.PredefinedActionsDelete,
    access: 'write',
    adminOnly: true,
    request: PredefinedActionIdRequest,
    successStatus: 200,
    summary:
      'Delete a predefined action (admin only); actions made from it are unchanged; a group left with fewer than two members is dissolved',
    tag,
  },
  {
    operationId: 'listPredefinedActionGroups',
    method: 'GET',
    path: groups,
    subject: PredefinedActionSubjects.PredefinedActionGroupsList,
    access: 'read',
    request: ListPredefinedActionGroupsRequest,
    successStatus: 200,
    summary: "List the account's predefined action groups",
    tag,
  },
  {
    operationId: 'createPredefinedActionGroup',
    method: 'POST',
    path: groups,
    subject: PredefinedActionSubjects.PredefinedActionGroupsCreate,
    access: 'write',
    adminOnly: true,
    request: CreatePredefinedActionGroupRequest,
    successStatus: 201,
    summary: 'Group at least two ungrouped predefined actions, in the order given (admin only)',
    tag,
  },
  {
    operationId: 'getPredefinedActionGroup',
    method: 'GET',
    path: group,
    subject: PredefinedActionSubjects.PredefinedActionGroupsGet,
    access: 'read',
    request: PredefinedActionGroupIdRequest,
    successStatus: 200,
    summary: 'Get a predefined action group',
    tag,
  },
  {
    operationId: 'deletePredefinedActionGroup',
    method: 'DELETE',
    path: group,
    subject: PredefinedActionSubjects.PredefinedActionGroupsDelete,
    access: 'write',
    adminOnly: true,
    request: PredefinedActionGroupIdRequest,
    successStatus: 200,
    summary: 'Delete a group (admin only); its predefined actions stay, ungrouped',
    tag,
  },
];
