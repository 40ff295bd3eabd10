import { newId } from '@crm/common';
import type { EntityManager } from 'typeorm';

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

/**
 * Seeds what every account has from the start: the statuses (lead first) and the default deal
 * pipeline and sales pipeline. Runs inside the provisioning transaction; a repeat changes nothing.
 */
export async function seedAccountDefaults(m: EntityManager, accountId: string): Promise<void> {
  const [lead] = await m.query('SELECT id FROM crm.statuses WHERE account_id = $1 AND is_lead', [accountId]);
  if (!lead) {
    for (const [position, s] of DEFAULT_STATUSES.entries()) {
      await m.query(
        'INSERT INTO crm.statuses (id, account_id, status, text, description, color, is_lead, position) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT DO NOTHING',
        [newId(), accountId, s.status, s.text, s.description, s.color, position === 0, position],
      );
    }
  }
  for (const kind of ['pipeline', 'sales'] as const) {
    const [existing] = await m.query('SELECT id FROM crm.pipelines WHERE account_id = $1 AND kind = $2 AND is_default', [accountId, kind]);
    if (existing) continue;
    await m.query(
      'INSERT INTO crm.pipelines (id, account_id, name, kind, is_default, stages) VALUES ($1, $2, $3, $4, true, $5) ON CONFLICT DO NOTHING',
      [newId(), accountId, kind === 'pipeline' ? 'Default pipeline' : 'Sales pipeline', kind, JSON.stringify(DEFAULT_PIPELINE_STAGES)],
    );
  }
}
