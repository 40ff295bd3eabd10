import type { CallResultReply } from '../call-results/call-result.dto';
import type { FieldReply } from '../fields/field.dto';
import type { FilterReply } from '../filters/filter.dto';
import type { LeadSourceDto } from '../lead-sources/lead-source.dto';
import type { PipelineReply } from '../pipelines/pipeline.dto';
import type { PredefinedActionGroupReply, PredefinedActionReply } from '../predefined-actions/predefined-action.dto';
import type { RelationshipTypeReply } from '../relationship-types/relationship-type.dto';
import type { AuthMethod, Role } from '../rpc/caller';
import type { StatusReply } from '../statuses/status.dto';
import type { TagsSummaryDto } from '../tags/tag.dto';
import type { UserDto } from '../users/user.dto';

/** Account-level settings a client needs on connect. */
export type BootstrapSettings = {
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

/**
 * Everything a client reads on connect, in one response (decisions.md "The rest of a complete
 * CRM API v3"). `auth_key` is always null: crm-core never sees API keys (stored only as keyed
 * hashes, shown once by the operator API and POST /change_auth_key), and a bearer token must
 * never be exchanged for a full-scope API key (docs/decisions.md "Bootstrap").
 */
export type BootstrapReply = {
  user_id: string;
  auth_key: null;
  user: { user: UserDto };
  team: Array<{ user: UserDto }>;
  settings: BootstrapSettings;
  custom_fields: Array<FieldReply<'custom_fields'>>;
  company_fields: Array<FieldReply<'company_fields'>>;
  deal_fields: Array<FieldReply<'deal_fields'>>;
  filters: FilterReply[];
  call_results: CallResultReply[];
  predefined_actions: PredefinedActionReply[];
  predefined_action_groups: PredefinedActionGroupReply[];
  relationship_types: RelationshipTypeReply[];
  contact_titles: string[];
  statuses: StatusReply[];
  lead_sources: Array<{ lead_source: LeadSourceDto }>;
  tags: TagsSummaryDto;
  pipelines: PipelineReply[];
};
