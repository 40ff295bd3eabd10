import type { PageInfo } from '../paging/paging.request';
import type { PredefinedActionStatus } from './predefined-action.requests';

export interface PredefinedActionDto {
  id: string;
  text: string;
  status: PredefinedActionStatus;
  days_after: number;
  /** OnePageCRM's name of days_after (the same value). */
  days: number;
  time: string | null;
  predefined_action_group_id: string | null;
  created_at: string;
  modified_at: string;
}

export interface PredefinedActionGroupDto {
  id: string;
  name: string;
  /** OnePageCRM's name of `name` (the same value). */
  text: string;
  /** Its place in the account's list of groups, 0 first; read-only (a new group is appended). Lists are in this order. */
  position: number;
  predefined_action_ids: string[];
  /** OnePageCRM's name of `predefined_action_ids` (the same value). */
  action_ids: string[];
  created_at: string;
  modified_at: string;
}

export interface PredefinedActionReply {
  predefined_action: PredefinedActionDto;
}

export interface ListPredefinedActionsReply extends PageInfo {
  predefined_actions: PredefinedActionReply[];
}

export interface PredefinedActionGroupReply {
  predefined_action_group: PredefinedActionGroupDto;
}

export interface ListPredefinedActionGroupsReply extends PageInfo {
  predefined_action_groups: PredefinedActionGroupReply[];
}
