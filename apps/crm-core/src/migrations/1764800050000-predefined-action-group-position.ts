import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * crm.predefined_action_groups.position (issue 13, item 4): OnePageCRM's read-only `position` of a
 * group in the account's list of groups, 0 first. Existing groups are numbered in their creation
 * order (the order lists had until now); a new group is appended (docs/decisions.md "OnePageCRM
 * shapes and the conformance fixture"). Lists read the groups by (account_id, position).
 */
export class PredefinedActionGroupPosition1764800050000 implements MigrationInterface {
  name = 'PredefinedActionGroupPosition1764800050000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE crm.predefined_action_groups ADD COLUMN position integer NOT NULL DEFAULT 0`);
    await q.query(`
      UPDATE crm.predefined_action_groups g SET position = n.position
      FROM (SELECT id, (row_number() OVER (PARTITION BY account_id ORDER BY created_at, id) - 1)::int AS position
            FROM crm.predefined_action_groups) n
      WHERE n.id = g.id`);
    await q.query(`CREATE INDEX predefined_action_groups_position_idx ON crm.predefined_action_groups (account_id, position, id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX crm.predefined_action_groups_position_idx`);
    await q.query(`ALTER TABLE crm.predefined_action_groups DROP COLUMN position`);
  }
}
