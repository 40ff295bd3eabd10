import type { ActionReply, ListActionsReply } from '../actions/action.dto';
import type { AttachmentDto } from '../attachments/attachment.dto';
import type { AttachmentReply, PinnedAttachmentsReply, UploadFormReply } from '../attachments/attachment.replies';
import type { BootstrapReply } from '../bootstrap/bootstrap.dto';
import type { SummaryBlocksDto } from '../bootstrap/summary.dto';
import type { ListCallResultsReply } from '../call-results/call-result.dto';
import type { CallReply, ListCallsReply } from '../calls/call.dto';
import type { CompanyReply, LinkedContactReply, ListCompaniesReply, ListLinkedContactsReply } from '../companies/company.dto';
import type { ContactRelationshipReply, ListContactRelationshipsReply } from '../contact-relationships/contact-relationship.dto';
import type { CascadeReply, ContactWrapperDto, ListContactsReply } from '../contacts/contact.dto';
import type { ChangeAuthKeyReply } from '../credentials/credential-record';
import type { ListCountriesReply } from '../countries/country.dto';
import type { DealReply, ListDealsReply } from '../deals/deal.dto';
import type { FieldReply, ListFieldsReply } from '../fields/field.dto';
import type { FilterDto, FilterReply, ListFiltersReply } from '../filters/filter.dto';
import type { LeadSourceReply, ListLeadSourcesReply } from '../lead-sources/lead-source.dto';
import type { ListMeetingsReply, MeetingReply } from '../meetings/meeting.dto';
import type { ListNotesReply, NoteReply } from '../notes/note.dto';
import type { ListNotificationsReply, MarkAllNotificationsReadReply, NotificationReply } from '../notifications/notification.dto';
import type { ListPipelinesReply, PipelineReply } from '../pipelines/pipeline.dto';
import type {
  ListPredefinedItemGroupsReply,
  ListPredefinedItemsReply,
  PredefinedItemGroupReply,
  PredefinedItemReply,
} from '../predefined-items/predefined-item.dto';
import type {
  ListPredefinedActionGroupsReply,
  ListPredefinedActionsReply,
  PredefinedActionGroupReply,
  PredefinedActionReply,
} from '../predefined-actions/predefined-action.dto';
import type { ListRelationshipTypesReply, RelationshipTypeReply } from '../relationship-types/relationship-type.dto';
import type { ListStatusesReply, StatusReply } from '../statuses/status.dto';
import type { ListTagsReply } from '../tags/tag.dto';
import type { GetUserReply, ListUsersReply } from '../users/user.requests';
import type { ListWebhookDeliveriesReply, ListWebhooksReply, WebhookDeliveryReply, WebhookReply } from '../webhooks/webhook.dto';

/** The `data` of a success that answers nothing more: `{}` (deletes, tag changes). */
export type EmptyReply = Record<string, never>;

/**
 * The `data` of every route's success envelope, by name: each {@link RouteDeclaration} names one
 * entry as its `reply`. The OpenAPI document's response schemas are generated from this interface
 * (`npm run sdk:generate` writes reply-schemas.generated.json; a unit test fails when the two
 * differ), so a reply type changed here changes the published document and the SDK with it.
 * The services return these types (their handlers' signatures).
 */
export interface ReplyTypes {
  EmptyReply: EmptyReply;
  ListUsersReply: ListUsersReply;
  GetUserReply: GetUserReply;
  ChangeAuthKeyReply: ChangeAuthKeyReply;
  ListCustomFieldsReply: ListFieldsReply<'custom_fields'>;
  CustomFieldReply: FieldReply<'custom_fields'>;
  ListCompanyFieldsReply: ListFieldsReply<'company_fields'>;
  CompanyFieldReply: FieldReply<'company_fields'>;
  ListDealFieldsReply: ListFieldsReply<'deal_fields'>;
  DealFieldReply: FieldReply<'deal_fields'>;
  ListRelationshipTypesReply: ListRelationshipTypesReply;
  RelationshipTypeReply: RelationshipTypeReply;
  ListPredefinedActionsReply: ListPredefinedActionsReply;
  PredefinedActionReply: PredefinedActionReply;
  ListPredefinedActionGroupsReply: ListPredefinedActionGroupsReply;
  PredefinedActionGroupReply: PredefinedActionGroupReply;
  ListPredefinedItemsReply: ListPredefinedItemsReply;
  PredefinedItemReply: PredefinedItemReply;
  ListPredefinedItemGroupsReply: ListPredefinedItemGroupsReply;
  PredefinedItemGroupReply: PredefinedItemGroupReply;
  ListCountriesReply: ListCountriesReply;
  ListWebhooksReply: ListWebhooksReply;
  WebhookReply: WebhookReply;
  ListWebhookDeliveriesReply: ListWebhookDeliveriesReply;
  WebhookDeliveryReply: WebhookDeliveryReply;
  ListContactsReply: ListContactsReply;
  ContactReply: ContactWrapperDto;
  CascadeReply: CascadeReply;
  /** GET /contacts/filters/{id}: the contacts the filter matches, with the filter. */
  ContactsByFilterReply: ListContactsReply & { filter: FilterDto };
  ListCompaniesReply: ListCompaniesReply;
  CompanyReply: CompanyReply;
  ListLinkedContactsReply: ListLinkedContactsReply;
  LinkedContactReply: LinkedContactReply;
  ListStatusesReply: ListStatusesReply;
  StatusReply: StatusReply;
  ListLeadSourcesReply: ListLeadSourcesReply;
  LeadSourceReply: LeadSourceReply;
  ListTagsReply: ListTagsReply;
  ListFiltersReply: ListFiltersReply;
  FilterReply: FilterReply;
  ListContactRelationshipsReply: ListContactRelationshipsReply;
  ContactRelationshipReply: ContactRelationshipReply;
  ListPipelinesReply: ListPipelinesReply;
  PipelineReply: PipelineReply;
  ListCallResultsReply: ListCallResultsReply;
  BootstrapReply: BootstrapReply;
  ListDealsReply: ListDealsReply;
  DealReply: DealReply;
  ListNotesReply: ListNotesReply;
  NoteReply: NoteReply;
  ListNotificationsReply: ListNotificationsReply;
  NotificationReply: NotificationReply;
  MarkAllNotificationsReadReply: MarkAllNotificationsReadReply;
  ListCallsReply: ListCallsReply;
  CallReply: CallReply;
  ListMeetingsReply: ListMeetingsReply;
  MeetingReply: MeetingReply;
  ListActionsReply: ListActionsReply;
  ActionReply: ActionReply;
  UploadFormReply: UploadFormReply;
  AttachmentReply: AttachmentReply;
  /** PATCH /attachments/{id}, pin and unpin answer the attachment itself as `data`. */
  AttachmentData: AttachmentDto;
  PinnedAttachmentsReply: PinnedAttachmentsReply;
  /** Not a `data`: the five blocks beside it in the envelope of a route with `replySummary`. */
  SummaryBlocks: SummaryBlocksDto;
}

export type ReplyName = Exclude<keyof ReplyTypes, 'SummaryBlocks'>;
