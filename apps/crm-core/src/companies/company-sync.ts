import type { EntityManager } from 'typeorm';

/**
 * A company's syncing: with `syncing_status` and a `synced_status_id`, its non-deleted contacts
 * take that status; with `syncing_tags`, they get every tag of `synced_tags` (tags are only added,
 * never removed). Applied when the company changes and when a contact joins it. Returns the ids of
 * the contacts that changed (their `updated` events are the caller's to write).
 */
export async function applyCompanySync(
  m: EntityManager,
  accountId: string,
  companyId: string,
  onlyContactIds?: string[],
): Promise<string[]> {
  const [company] = await m.query(
    'SELECT syncing_status, synced_status_id, syncing_tags, synced_tags FROM crm.companies WHERE id = $1 AND account_id = $2',
    [companyId, accountId],
  );
  if (!company) return [];
  const changed = new Set<string>();
  const scope = onlyContactIds ? ' AND c.id = ANY($3::varchar[])' : '';
  const scopeParams = onlyContactIds ? [onlyContactIds] : [];
  if (company.syncing_status && company.synced_status_id) {
    const rows: Array<{ id: string }> = await m.query(
      `WITH u AS (UPDATE crm.contacts c SET status_id = $2, modified_at = now() WHERE c.company_id = $1 AND c.deleted_at IS NULL AND c.status_id <> $2${scope} RETURNING c.id) SELECT id FROM u`,
      [companyId, company.synced_status_id, ...scopeParams],
    );
    rows.forEach((r) => changed.add(r.id));
  }
  const tags: string[] = company.synced_tags ?? [];
  if (company.syncing_tags && tags.length > 0) {
    const rows: Array<{ id: string }> = await m.query(
      `WITH ins AS (
         INSERT INTO crm.contact_tags (contact_id, tag_id, account_id)
         SELECT c.id, t.id, c.account_id FROM crm.contacts c JOIN crm.tags t ON t.account_id = c.account_id AND lower(t.name) = ANY($2::text[])
         WHERE c.company_id = $1 AND c.deleted_at IS NULL${scope}
         ON CONFLICT DO NOTHING RETURNING contact_id)
       SELECT DISTINCT contact_id AS id FROM ins`,
      [companyId, tags.map((t) => t.toLowerCase()), ...scopeParams],
    );
    if (rows.length > 0)
      await m.query('UPDATE crm.contacts SET modified_at = now() WHERE id = ANY($1::varchar[])', [rows.map((r) => r.id)]);
    rows.forEach((r) => changed.add(r.id));
  }
  return [...changed];
}
