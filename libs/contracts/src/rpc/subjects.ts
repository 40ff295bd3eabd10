import { AccountSubjects } from '../accounts/account.subjects';
import { ActionSubjects } from '../actions/action.subjects';
import { AttachmentSubjects } from '../attachments/attachment.subjects';
import { BootstrapSubjects } from '../bootstrap/bootstrap.subjects';
import { CallResultSubjects } from '../call-results/call-result.subjects';
import { CallSubjects } from '../calls/call.subjects';
import { CompanySubjects } from '../companies/company.subjects';
import { ContactRelationshipSubjects } from '../contact-relationships/contact-relationship.subjects';
import { ContactSubjects } from '../contacts/contact.subjects';
import { CountrySubjects } from '../countries/country.subjects';
import { CredentialSubjects } from '../credentials/credential.subjects';
import { DealSubjects } from '../deals/deal.subjects';
import { FieldSubjects } from '../fields/field.subjects';
import { FilterSubjects } from '../filters/filter.subjects';
import { LeadSourceSubjects } from '../lead-sources/lead-source.subjects';
import { MeetingSubjects } from '../meetings/meeting.subjects';
import { NoteSubjects } from '../notes/note.subjects';
import { NotificationSubjects } from '../notifications/notification.subjects';
import { PipelineSubjects } from '../pipelines/pipeline.subjects';
import { PredefinedActionSubjects } from '../predefined-actions/predefined-action.subjects';
import { PredefinedItemSubjects } from '../predefined-items/predefined-item.subjects';
import { RelationshipTypeSubjects } from '../relationship-types/relationship-type.subjects';
import { StatusSubjects } from '../statuses/status.subjects';
import { TagSubjects } from '../tags/tag.subjects';
import { UserSubjects } from '../users/user.subjects';
import { WebhookSubjects } from '../webhooks/webhook.subjects';

/**
 * NATS subjects: the only names services know of each other. A published subject is never
 * changed; a new version gets a `.v2` subject. At run time every subject is prefixed with the
 * deployment namespace (CRM_NAMESPACE), see {@link namespacedSubject}.
 */
export const Subjects = {
  ...UserSubjects,
  ...AccountSubjects,
  ...CredentialSubjects,
  ...FieldSubjects,
  ...RelationshipTypeSubjects,
  ...PredefinedActionSubjects,
  ...PredefinedItemSubjects,
  ...CountrySubjects,
  ...ContactSubjects,
  ...CompanySubjects,
  ...StatusSubjects,
  ...LeadSourceSubjects,
  ...TagSubjects,
  ...FilterSubjects,
  ...ContactRelationshipSubjects,
  ...PipelineSubjects,
  ...CallResultSubjects,
  ...BootstrapSubjects,
  ...DealSubjects,
  ...NoteSubjects,
  ...NotificationSubjects,
  ...CallSubjects,
  ...MeetingSubjects,
  ...ActionSubjects,
  ...WebhookSubjects,
  ...AttachmentSubjects,
} as const;

export type Subject = (typeof Subjects)[keyof typeof Subjects];

/** Queue groups: one per consuming service, so replicas share the work. */
export const QueueGroups = {
  crmCore: 'crm-core',
  authServer: 'auth-server',
  webhookDispatcher: 'webhook-dispatcher',
} as const;

export function namespacedSubject(namespace: string, subject: string): string {
  return `${namespace}.${subject}`;
}
