import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A contact's relationships are read from both ends (contact_id or related_contact_id): index the
 * second end too, so GET /contacts/{id}/relationships stays an index lookup.
 */
export class ContactRelationshipsRelated1764100440000 implements MigrationInterface {
  name = 'ContactRelationshipsRelated1764100440000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX contact_relationships_related_idx ON crm.contact_relationships (account_id, related_contact_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX crm.contact_relationships_related_idx`);
  }
}
