import { ACTION_ROUTES } from '../actions/action.routes';
import { BOOTSTRAP_ROUTES } from '../bootstrap/bootstrap.routes';
import { CALL_RESULT_ROUTES } from '../call-results/call-result.routes';
import { CALL_ROUTES } from '../calls/call.routes';
import { COMPANY_ROUTES } from '../companies/company.routes';
import { CONTACT_RELATIONSHIP_ROUTES } from '../contact-relationships/contact-relationship.routes';
import { CONTACT_ONLY_ROUTES } from '../contacts/contact.routes';
import { DEAL_ROUTES } from '../deals/deal.routes';
import { FILTER_ROUTES } from '../filters/filter.routes';
import { LEAD_SOURCE_ROUTES } from '../lead-sources/lead-source.routes';
import { MEETING_ROUTES } from '../meetings/meeting.routes';
import { NOTE_ROUTES } from '../notes/note.routes';
import { PIPELINE_ROUTES } from '../pipelines/pipeline.routes';
import { STATUS_ROUTES } from '../statuses/status.routes';
import { TAG_ROUTES } from '../tags/tag.routes';
import type { RouteDeclaration } from './route-declaration';

// The route groups of the issues that introduced them, kept for existing importers; each entity
// declares its own routes in its folder.

/** Contacts and companies (issue 3). */
export const CONTACT_ROUTES: readonly RouteDeclaration[] = [...CONTACT_ONLY_ROUTES, ...COMPANY_ROUTES];

/** Account configuration (issue 4): statuses, lead sources, tags, saved filters, contact relationships, pipelines, call results, bootstrap. */
export const CONFIGURATION_ROUTES: readonly RouteDeclaration[] = [
  ...STATUS_ROUTES,
  ...LEAD_SOURCE_ROUTES,
  ...TAG_ROUTES,
  ...FILTER_ROUTES,
  ...CONTACT_RELATIONSHIP_ROUTES,
  ...PIPELINE_ROUTES,
  ...CALL_RESULT_ROUTES,
  ...BOOTSTRAP_ROUTES,
];

/** Deals, notes, calls, meetings and actions (issue 5). */
export const RECORD_ROUTES: readonly RouteDeclaration[] = [
  ...DEAL_ROUTES,
  ...NOTE_ROUTES,
  ...CALL_ROUTES,
  ...MEETING_ROUTES,
  ...ACTION_ROUTES,
];
