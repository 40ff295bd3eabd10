import type { RouteDeclaration } from '../routes/route-declaration';
import { ListTagsRequest, TagNameRequest } from './tag.requests';
import { TagSubjects } from './tag.subjects';

/** Tags (issue 4). */
export const TAG_ROUTES: readonly RouteDeclaration[] = [
  {
    operationId: 'listTags',
    method: 'GET',
    path: '/tags',
    subject: TagSubjects.TagsList,
    access: 'read',
    request: ListTagsRequest,
    reply: 'ListTagsReply',
    successStatus: 200,
    summary: "List the account's tags (paged, by name) and the system tags, each with contact counts and action stream count",
    tag: 'Tags',
  },
  {
    operationId: 'deleteTag',
    method: 'DELETE',
    path: '/tags/{tag_name}',
    subject: TagSubjects.TagsDelete,
    access: 'write',
    adminOnly: true,
    request: TagNameRequest,
    reply: 'EmptyReply',
    successStatus: 200,
    summary: 'Delete a tag (any letter case) and remove it from every contact (admin only)',
    tag: 'Tags',
  },
];
