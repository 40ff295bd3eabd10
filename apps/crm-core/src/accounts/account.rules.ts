/** Statuses every new account starts with; the first is the built-in lead status (never deleted). */
export const DEFAULT_STATUSES: ReadonlyArray<{ status: string; text: string; description: string; color: string }> = [
  { status: 'Lead', text: 'LD', description: 'New contacts you have not qualified yet', color: '#8EA0B1' },
  { status: 'Prospect', text: 'PR', description: 'Qualified contacts you are working to close', color: '#F9A825' },
  { status: 'Trial', text: 'TR', description: 'Contacts trying your product or service', color: '#29B6F6' },
  { status: 'Customer', text: 'CU', description: 'Contacts who bought from you', color: '#43A047' },
  { status: 'Inactive', text: 'IN', description: 'Contacts you are not working with now', color: '#9E9E9E' },
];

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
