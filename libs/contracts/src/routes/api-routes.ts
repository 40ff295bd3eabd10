import { ACTION_ROUTES } from '../actions/action.routes';
import { ATTACHMENT_ROUTES } from '../attachments/attachment.routes';
import { BOOTSTRAP_ROUTES } from '../bootstrap/bootstrap.routes';
import { CALL_RESULT_ROUTES } from '../call-results/call-result.routes';
import { CALL_ROUTES } from '../calls/call.routes';
import { COMPANY_ROUTES } from '../companies/company.routes';
import { CONTACT_RELATIONSHIP_ROUTES } from '../contact-relationships/contact-relationship.routes';
import { CONTACT_ROUTES } from '../contacts/contact.routes';
import { COUNTRY_ROUTES } from '../countries/country.routes';
import { CREDENTIAL_ROUTES } from '../credentials/credential.routes';
import { DEAL_ROUTES } from '../deals/deal.routes';
import { FIELD_ROUTES } from '../fields/field.routes';
import { FILTER_ROUTES } from '../filters/filter.routes';
import { LEAD_SOURCE_ROUTES } from '../lead-sources/lead-source.routes';
import { MEETING_ROUTES } from '../meetings/meeting.routes';
import { NOTE_ROUTES } from '../notes/note.routes';
import { NOTIFICATION_ROUTES } from '../notifications/notification.routes';
import { PIPELINE_ROUTES } from '../pipelines/pipeline.routes';
import { PREDEFINED_ACTION_ROUTES } from '../predefined-actions/predefined-action.routes';
import { PREDEFINED_ITEM_ROUTES } from '../predefined-items/predefined-item.routes';
import { RELATIONSHIP_TYPE_ROUTES } from '../relationship-types/relationship-type.routes';
import { STATUS_ROUTES } from '../statuses/status.routes';
import { TAG_ROUTES } from '../tags/tag.routes';
import { USER_ROUTES } from '../users/user.routes';
import { WEBHOOK_ROUTES } from '../webhooks/webhook.routes';
import type { RouteDeclaration } from './route-declaration';

/**
 * Every API v3 route, in the order the gateway matches them (the first matching declaration wins).
 * Adding an endpoint: declare it in its entity's folder, list the folder's routes here once, handle
 * its subject in one service.
 */
export const API_ROUTES: readonly RouteDeclaration[] = [
  ...USER_ROUTES,
  ...CREDENTIAL_ROUTES,
  ...FIELD_ROUTES,
  ...RELATIONSHIP_TYPE_ROUTES,
  ...PREDEFINED_ACTION_ROUTES,
  ...PREDEFINED_ITEM_ROUTES,
  ...COUNTRY_ROUTES,
  ...WEBHOOK_ROUTES,
  ...CONTACT_ROUTES,
  ...COMPANY_ROUTES,
  ...STATUS_ROUTES,
  ...LEAD_SOURCE_ROUTES,
  ...TAG_ROUTES,
  ...FILTER_ROUTES,
  ...CONTACT_RELATIONSHIP_ROUTES,
  ...PIPELINE_ROUTES,
  ...CALL_RESULT_ROUTES,
  ...BOOTSTRAP_ROUTES,
  ...DEAL_ROUTES,
  ...NOTE_ROUTES,
  ...NOTIFICATION_ROUTES,
  ...CALL_ROUTES,
  ...MEETING_ROUTES,
  ...ACTION_ROUTES,
  ...ATTACHMENT_ROUTES,
];

export const API_PREFIX = '/api/v3';
