import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Predefined action templates and their groups (issue 4). */
export class PredefinedActions1764000200000 implements MigrationInterface {
  name = 'PredefinedActions1764000200000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE crm.predefined_action_groups (
        id varchar(24) PRIMARY KEY,
        account_id varchar(24) NOT NULL REFERENCES crm.accounts(id) ON DELETE CASCADE,
        name varchar(100) NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        modified_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE UNIQUE INDEX predefined_action_groups_name_uq ON crm.predefined_action_groups (account_id, lower(name))`);
    await q.query(`
      CREATE TABLE crm.predefined_actions (
        id varchar(24) PRIMARY KEY,
        account_id varchar(24) NOT NULL REFERENCES crm.accounts(id) ON DELETE CASCADE,
        text varchar(2000) NOT NULL,
        status varchar(16) NOT NULL CHECK (status IN ('date', 'date_time', 'waiting')),
        days_after integer NOT NULL CHECK (days_after BETWEEN 0 AND 3650),
        time varchar(5),
        group_id varchar(24) REFERENCES crm.predefined_action_groups(id) ON DELETE SET NULL,
        group_position integer,
        created_at timestamptz NOT NULL DEFAULT now(),
        modified_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT predefined_actions_time_ck CHECK ((status = 'date_time') = (time IS NOT NULL))
      )`);
    await q.query(`CREATE INDEX predefined_actions_order_idx ON crm.predefined_actions (account_id, created_at, id)`);
    await q.query(`CREATE INDEX predefined_actions_group_idx ON crm.predefined_actions (group_id, group_position)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE crm.predefined_actions`);
    await q.query(`DROP TABLE crm.predefined_action_groups`);
  }
}
