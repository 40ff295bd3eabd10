import type { AccountType, CostSetup, StoredAccountSettings } from '../accounts/account-settings';
import type { FieldDto } from '../fields/field.dto';
import type { FilterDto } from '../filters/filter.dto';
import type { PipelineReply } from '../pipelines/pipeline.dto';
import type { PredefinedActionDto, PredefinedActionGroupReply } from '../predefined-actions/predefined-action.dto';
import type { RelationshipTypeReply } from '../relationship-types/relationship-type.dto';
import type { AuthMethod, Role } from '../rpc/caller';
import type { UserDto } from '../users/user.dto';

/**
 * Account-level settings a client needs on connect: OnePageCRM's settings keys (stored per account,
 * set by the operator; docs/decisions.md "Account settings") and ours.
 */
export type BootstrapSettings = StoredAccountSettings & {
  /** The last (at most 5) countries used in contact addresses, newest first. */
  popular_countries: string[];
  /** The stages of the account's default deal pipeline. */
  deal_stages: Array<{ stage: number; label: string }>;
  /** The account's pipelines, as `data.pipelines`. */
  pipelines: PipelineReply[];
  account_id: string;
  account_name: string;
  region: string;
  /** The built-in status new contacts get and deleted statuses fall back to. */
  lead_status_id: string;
  default_pipeline_id: string | null;
  default_sales_pipeline_id: string | null;
  /** The caller's role and how it authenticated. */
  role: Role;
  auth_method: AuthMethod;
  scopes: string[];
  per_page: { default: number; max: number };
  system_tags: string[];
};

/** A quick date option: `number` `period`s from today. */
export type NextActionDate = { number: number; period: 'days' | 'weeks' | 'months' };

/**
 * Everything a client reads on connect, in one response (decisions.md "The rest of a complete
 * CRM API v3"). `auth_key` is always null: crm-core never sees API keys (stored only as keyed
 * hashes, shown once by the operator API and POST /change_auth_key), and a bearer token must
 * never be exchanged for a full-scope API key (docs/decisions.md "Bootstrap"). The five summary
 * blocks (statuses, lead_sources, tags, contacts_count, team_stream) are beside `data`, as OnePageCRM
 * has them (the route's `replySummary`).
 */
export type BootstrapReply = {
  user_id: string;
  auth_key: null;
  /** Not wrapped, as OnePageCRM has it. */
  user: UserDto;
  /** Every user of the account, not wrapped. */
  team: UserDto[];
  /** `pro`, `trial` or `free`, as the operator set it (default `pro`). */
  account_type: AccountType;
  settings: BootstrapSettings;
  /** How deal cost and commission are set up (cost disabled by default). */
  cost_setup: CostSetup;
  /**
   * Quick date options for new actions (at most 5, nearest first): the distances the caller's
   * own dated next actions were most often set at, completed from 1 and 3 days, 1 and 2 weeks, 1 month.
   */
  next_action_dates: NextActionDate[];
  /** Fields, filters and predefined actions are flat here, as in OnePageCRM's bootstrap. */
  custom_fields: FieldDto[];
  company_fields: FieldDto[];
  deal_fields: FieldDto[];
  filters: FilterDto[];
  /** Call result ids to their labels, as OnePageCRM has it; `call_results_order` gives their order. */
  call_results: Record<string, string>;
  call_results_order: string[];
  predefined_actions: PredefinedActionDto[];
  predefined_action_groups: PredefinedActionGroupReply[];
  relationship_types: RelationshipTypeReply[];
  contact_titles: string[];
  pipelines: PipelineReply[];
};
