import { ActionSubjects } from '../actions/action.subjects';
import { BootstrapSubjects } from '../bootstrap/bootstrap.subjects';
import { CallResultSubjects } from '../call-results/call-result.subjects';
import { CallSubjects } from '../calls/call.subjects';
import { CompanySubjects } from '../companies/company.subjects';
import { ContactRelationshipSubjects } from '../contact-relationships/contact-relationship.subjects';
import { ContactOnlySubjects } from '../contacts/contact.subjects';
import { DealSubjects } from '../deals/deal.subjects';
import { FilterSubjects } from '../filters/filter.subjects';
import { LeadSourceSubjects } from '../lead-sources/lead-source.subjects';
import { MeetingSubjects } from '../meetings/meeting.subjects';
import { NoteSubjects } from '../notes/note.subjects';
import { PipelineSubjects } from '../pipelines/pipeline.subjects';
import { StatusSubjects } from '../statuses/status.subjects';
import { TagSubjects } from '../tags/tag.subjects';

// The subject groups of the issues that introduced them, kept for existing importers; each entity
// declares its own subjects in its folder.

/** Contacts and companies (issue 3). */
export const ContactSubjects = { ...ContactOnlySubjects, ...CompanySubjects } as const;

/** Account configuration (issue 4). */
export const ConfigurationSubjects = {
  ...StatusSubjects,
  ...LeadSourceSubjects,
  ...TagSubjects,
  ...FilterSubjects,
  ...ContactRelationshipSubjects,
  ...PipelineSubjects,
  ...CallResultSubjects,
  ...BootstrapSubjects,
} as const;

/** Deals, notes, calls, meetings and actions (issue 5). */
export const RecordSubjects = { ...DealSubjects, ...NoteSubjects, ...CallSubjects, ...MeetingSubjects, ...ActionSubjects } as const;
