import type { ReplyName } from '../routes/reply-types';
import type { RouteDeclaration } from '../routes/route-declaration';
import { FIELD_SET_INFO, FIELD_SETS, type FieldSet } from './field.dto';
import { CreateFieldRequest, FIELD_REQUESTS, ListFieldsRequest } from './field.requests';

const NAMES: Record<FieldSet, { one: string; many: string; tag: string; reply: ReplyName; listReply: ReplyName }> = {
  custom_fields: {
    one: 'CustomField',
    many: 'CustomFields',
    tag: 'Custom fields',
    reply: 'CustomFieldReply',
    listReply: 'ListCustomFieldsReply',
  },
  company_fields: {
    one: 'CompanyField',
    many: 'CompanyFields',
    tag: 'Company fields',
    reply: 'CompanyFieldReply',
    listReply: 'ListCompanyFieldsReply',
  },
  deal_fields: { one: 'DealField', many: 'DealFields', tag: 'Deal fields', reply: 'DealFieldReply', listReply: 'ListDealFieldsReply' },
};

function routesOf(set: FieldSet): RouteDeclaration[] {
  const info = FIELD_SET_INFO[set];
  const { one, many, tag, reply, listReply } = NAMES[set];
  const requests = FIELD_REQUESTS[set];
  const collection = `/${set}`;
  const record = `/${set}/{${info.idParam}}`;
  return [
    {
      operationId: `list${many}`,
      method: 'GET',
      path: collection,
      subject: info.subjects.list,
      access: 'read',
      request: ListFieldsRequest,
      reply: listReply,
      successStatus: 200,
      summary: `List the account's ${info.label}s (default order: position); filter by type, sort_by position, created_at or modified_at`,
      tag,
    },
    {
      operationId: `create${one}`,
      method: 'POST',
      path: collection,
      subject: info.subjects.create,
      access: 'write',
      adminOnly: true,
      request: CreateFieldRequest,
      reply,
      successStatus: 201,
      summary: `Create a ${info.label} (admin only); choices are required for select_box and multiple_choice and refused for other types`,
      tag,
    },
    {
      operationId: `get${one}`,
      method: 'GET',
      path: record,
      subject: info.subjects.get,
      access: 'read',
      request: requests.id,
      reply,
      successStatus: 200,
      summary: `Get a ${info.label}`,
      tag,
    },
    {
      operationId: `update${one}`,
      method: 'PUT',
      path: record,
      subject: info.subjects.update,
      access: 'write',
      adminOnly: true,
      request: requests.update,
      reply,
      successStatus: 200,
      summary: `Replace a ${info.label}'s name, position and choices (admin only; the type cannot change); with partial=true only the fields sent change`,
      tag,
    },
    {
      operationId: `patch${one}`,
      method: 'PATCH',
      path: record,
      subject: info.subjects.patch,
      access: 'write',
      adminOnly: true,
      request: requests.patch,
      reply,
      successStatus: 200,
      summary: `Change only the fields sent of a ${info.label} (admin only; the type cannot change)`,
      tag,
    },
    {
      operationId: `delete${one}`,
      method: 'DELETE',
      path: record,
      subject: info.subjects.delete,
      access: 'write',
      adminOnly: true,
      request: requests.id,
      reply: 'EmptyReply',
      successStatus: 200,
      summary: `Delete a ${info.label} (admin only)`,
      tag,
    },
  ];
}

/** /custom_fields, /company_fields, /deal_fields (issue 4): six routes per set. */
export const FIELD_ROUTES: readonly RouteDeclaration[] = FIELD_SETS.flatMap(routesOf);
