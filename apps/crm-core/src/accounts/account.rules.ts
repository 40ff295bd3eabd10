/**
 * Statuses every new account starts with; the first is the built-in lead status (never deleted).
 * `status` is the type key (OnePageCRM's; Trial has none of its own, so it is the first custom
 * status), `text` the name.
 */
export const DEFAULT_STATUSES: ReadonlyArray<{ status: string; text: string; description: string; color: string }> = [
  { status: 'lead', text: 'Lead', description: 'New contacts you have not qualified yet', color: '#8EA0B1' },
  { status: 'prospect', text: 'Prospect', description: 'Qualified contacts you are working to close', color: '#F9A825' },
  { status: 'custom1', text: 'Trial', description: 'Contacts trying your product or service', color: '#29B6F6' },
  { status: 'customer', text: 'Customer', description: 'Contacts who bought from you', color: '#43A047' },
  { status: 'inactive', text: 'Inactive', description: 'Contacts you are not working with now', color: '#9E9E9E' },
];

/** How many custom type keys the default statuses use (a new account's next custom status is the one after). */
export const DEFAULT_CUSTOM_STATUSES = DEFAULT_STATUSES.filter((s) => /^custom\d+$/.test(s.status)).length;

/** Stages of the default deal pipeline ({ stage, label }, 0 < stage < 100). */
export const DEFAULT_PIPELINE_STAGES = [
  { stage: 10, label: 'Qualification' },
  { stage: 25, label: 'Needs analysis' },
  { stage: 50, label: 'Proposal' },
  { stage: 75, label: 'Negotiation' },
  { stage: 90, label: 'Verbal agreement' },
];

/** The default pipelines every account has: the deal pipeline and the sales pipeline. */
export const DEFAULT_PIPELINES: ReadonlyArray<{ kind: 'pipeline' | 'sales'; name: string }> = [
  { kind: 'pipeline', name: 'Default pipeline' },
  { kind: 'sales', name: 'Sales pipeline' },
];

/** The address a user BCCs to log e-mails: the user's id at the deployment's BCC domain. */
export function bccEmailOf(userId: string, bccDomain: string): string {
  return `${userId}@${bccDomain}`;
}
