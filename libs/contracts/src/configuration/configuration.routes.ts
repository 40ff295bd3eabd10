import type { RouteDeclaration } from '../routes/route-declaration';
import { BootstrapRequest } from './bootstrap.dto';
import { ConfigurationSubjects as S } from './configuration.subjects';
import { ContactRelationshipIdRequest, CreateContactRelationshipRequest, ListContactRelationshipsRequest } from './contact-relationship.dto';
import { CreateFilterRequest, FilterIdRequest, ListFiltersRequest, PatchFilterRequest, UpdateFilterRequest } from './filter.requests';
import { CreateLeadSourceRequest, LeadSourceIdRequest, ListLeadSourcesRequest, PatchLeadSourceRequest, UpdateLeadSourceRequest } from './lead-source.requests';
import { ListCallResultsRequest, ListPipelinesRequest, PipelineIdRequest } from './pipeline.dto';
import { CreateStatusRequest, ListStatusesRequest, PatchStatusRequest, StatusIdRequest, UpdateStatusRequest } from './status.requests';
import { ListTagsRequest, TagNameRequest } from './tag.requests';

const ADMIN = ' (admin only)';

/** Statuses, lead sources, tags, saved filters, contact relationships, pipelines, call results, bootstrap (issue 4). */
export const CONFIGURATION_ROUTES: readonly RouteDeclaration[] = [
  // --- statuses ---
  { operationId: 'listStatuses', method: 'GET', path: '/statuses', subject: S.StatusesList, access: 'read', request: ListStatusesRequest, successStatus: 200, summary: "List the account's statuses (the built-in lead status first) with their contact counts, action stream count and per-user counts", tag: 'Statuses' },
  { operationId: 'createStatus', method: 'POST', path: '/statuses', subject: S.StatusesCreate, access: 'write', request: CreateStatusRequest, successStatus: 201, summary: `Create a status${ADMIN}; names are unique regardless of letter case`, tag: 'Statuses' },
  { operationId: 'getStatus', method: 'GET', path: '/statuses/{status_id}', subject: S.StatusesGet, access: 'read', request: StatusIdRequest, successStatus: 200, summary: 'Get a status with its counts', tag: 'Statuses' },
  { operationId: 'updateStatus', method: 'PUT', path: '/statuses/{status_id}', subject: S.StatusesUpdate, access: 'write', request: UpdateStatusRequest, successStatus: 200, summary: `Replace a status's name, text, description and color${ADMIN}; with partial=true only the fields sent change`, tag: 'Statuses' },
  { operationId: 'patchStatus', method: 'PATCH', path: '/statuses/{status_id}', subject: S.StatusesPatch, access: 'write', request: PatchStatusRequest, successStatus: 200, summary: `Change the fields sent of a status${ADMIN}`, tag: 'Statuses' },
  {
    operationId: 'deleteStatus',
    method: 'DELETE',
    path: '/statuses/{status_id}',
    subject: S.StatusesDelete,
    access: 'write',
    request: StatusIdRequest,
    successStatus: 200,
    summary: `Delete a status${ADMIN}: its contacts, companies and webhooks fall back to the lead status, in one transaction; the lead status cannot be deleted`,
    tag: 'Statuses',
  },
  // --- lead sources ---
  { operationId: 'listLeadSources', method: 'GET', path: '/lead_sources', subject: S.LeadSourcesList, access: 'read', request: ListLeadSourcesRequest, successStatus: 200, summary: "List the account's lead sources with their counts", tag: 'Lead sources' },
  { operationId: 'createLeadSource', method: 'POST', path: '/lead_sources', subject: S.LeadSourcesCreate, access: 'write', request: CreateLeadSourceRequest, successStatus: 201, summary: `Create a lead source${ADMIN}; names are unique regardless of letter case`, tag: 'Lead sources' },
  { operationId: 'getLeadSource', method: 'GET', path: '/lead_sources/{lead_source_id}', subject: S.LeadSourcesGet, access: 'read', request: LeadSourceIdRequest, successStatus: 200, summary: 'Get a lead source with its counts', tag: 'Lead sources' },
  { operationId: 'updateLeadSource', method: 'PUT', path: '/lead_sources/{lead_source_id}', subject: S.LeadSourcesUpdate, access: 'write', request: UpdateLeadSourceRequest, successStatus: 200, summary: `Rename a lead source${ADMIN}`, tag: 'Lead sources' },
  { operationId: 'patchLeadSource', method: 'PATCH', path: '/lead_sources/{lead_source_id}', subject: S.LeadSourcesPatch, access: 'write', request: PatchLeadSourceRequest, successStatus: 200, summary: `Change the fields sent of a lead source${ADMIN}`, tag: 'Lead sources' },
  { operationId: 'deleteLeadSource', method: 'DELETE', path: '/lead_sources/{lead_source_id}', subject: S.LeadSourcesDelete, access: 'write', request: LeadSourceIdRequest, successStatus: 200, summary: `Delete a lead source${ADMIN}; contacts that had it are left without one`, tag: 'Lead sources' },
  // --- tags ---
  { operationId: 'listTags', method: 'GET', path: '/tags', subject: S.TagsList, access: 'read', request: ListTagsRequest, successStatus: 200, summary: "List the account's tags (paged, by name) and the system tags, each with contact counts and action stream count", tag: 'Tags' },
  { operationId: 'deleteTag', method: 'DELETE', path: '/tags/{tag_name}', subject: S.TagsDelete, access: 'write', request: TagNameRequest, successStatus: 200, summary: `Delete a tag (any letter case) and remove it from every contact${ADMIN}`, tag: 'Tags' },
  // --- saved filters ---
  { operationId: 'listFilters', method: 'GET', path: '/filters', subject: S.FiltersList, access: 'read', request: ListFiltersRequest, successStatus: 200, summary: "List the account's saved filters by name", tag: 'Filters' },
  { operationId: 'createFilter', method: 'POST', path: '/filters', subject: S.FiltersCreate, access: 'write', request: CreateFilterRequest, successStatus: 201, summary: `Create a saved filter${ADMIN}: a name and conditions { field, operator, value } over contacts, all of which must hold`, tag: 'Filters' },
  { operationId: 'getFilter', method: 'GET', path: '/filters/{filter_id}', subject: S.FiltersGet, access: 'read', request: FilterIdRequest, successStatus: 200, summary: 'Get a saved filter', tag: 'Filters' },
  { operationId: 'updateFilter', method: 'PUT', path: '/filters/{filter_id}', subject: S.FiltersUpdate, access: 'write', request: UpdateFilterRequest, successStatus: 200, summary: `Replace a saved filter's name and conditions${ADMIN}; with partial=true only the fields sent change`, tag: 'Filters' },
  { operationId: 'patchFilter', method: 'PATCH', path: '/filters/{filter_id}', subject: S.FiltersPatch, access: 'write', request: PatchFilterRequest, successStatus: 200, summary: `Change the fields sent of a saved filter${ADMIN}`, tag: 'Filters' },
  { operationId: 'deleteFilter', method: 'DELETE', path: '/filters/{filter_id}', subject: S.FiltersDelete, access: 'write', request: FilterIdRequest, successStatus: 200, summary: `Delete a saved filter${ADMIN}`, tag: 'Filters' },
  // --- relationships between contacts ---
  { operationId: 'listContactRelationships', method: 'GET', path: '/contacts/{contact_id}/relationships', subject: S.ContactRelationshipsList, access: 'read', request: ListContactRelationshipsRequest, successStatus: 200, summary: "List a contact's relationships to other contacts, each with the label of the related contact", tag: 'Contact relationships' },
  {
    operationId: 'createContactRelationship',
    method: 'POST',
    path: '/contacts/{contact_id}/relationships',
    subject: S.ContactRelationshipsCreate,
    access: 'write',
    request: CreateContactRelationshipRequest,
    successStatus: 201,
    summary: 'Relate two contacts: a symmetrical type gives both the same label; a directional one needs variant_id, the label of the related contact (the contact gets the other)',
    tag: 'Contact relationships',
  },
  { operationId: 'deleteContactRelationship', method: 'DELETE', path: '/contacts/{contact_id}/relationships/{relationship_id}', subject: S.ContactRelationshipsDelete, access: 'write', request: ContactRelationshipIdRequest, successStatus: 200, summary: 'Delete a relationship (from either of its contacts)', tag: 'Contact relationships' },
  // --- pipelines, call results, bootstrap ---
  { operationId: 'listPipelines', method: 'GET', path: '/pipelines', subject: S.PipelinesList, access: 'read', request: ListPipelinesRequest, successStatus: 200, summary: "List the account's deal pipelines and sales pipelines with their stages", tag: 'Pipelines' },
  { operationId: 'getPipeline', method: 'GET', path: '/pipelines/{pipeline_id}', subject: S.PipelinesGet, access: 'read', request: PipelineIdRequest, successStatus: 200, summary: 'Get a pipeline', tag: 'Pipelines' },
  { operationId: 'listCallResults', method: 'GET', path: '/call_results', subject: S.CallResultsList, access: 'read', request: ListCallResultsRequest, successStatus: 200, summary: 'List the results a logged call may have', tag: 'Calls' },
  {
    operationId: 'bootstrap',
    method: 'GET',
    path: '/bootstrap',
    subject: S.Bootstrap,
    access: 'read',
    request: BootstrapRequest,
    successStatus: 200,
    summary: "Everything a client reads on connect: the caller's user (auth_key is always null), team, settings, custom/company/deal fields, filters, call results, predefined actions, relationship types, contact titles, statuses, lead sources, tags and pipelines",
    tag: 'Bootstrap',
  },
];
