import type { MigrationInterface, QueryRunner } from 'typeorm';
import { CONTACT_TAGS_DOC_FUNCTION } from './1764800800000-contact-documents';

/**
 * Stored counts of the action streams and of the tags (decisions.md "Action-stream and tag counts
 * from stored counters"): the summary blocks' last counts that grew with the account. Before, each
 * summary (GET /bootstrap, /statuses, /lead_sources, /tags, and the single-contact writes that
 * answer with the blocks: change_status, assign_tag, unassign_tag) joined the caller's next actions
 * to their contacts, every tagged contact to its tags, and every next action of the account to its
 * contact.
 *
 * Two columns of crm.contacts carry what the counts group by, so that every counter is kept by the
 * contacts' own statement triggers, from their transition tables, under the contact's row lock:
 * - `stream_ids`: the users with a next action on the contact (sorted; at most one next action per
 *   contact and assignee, index actions_next_uq), set by statement triggers on crm.actions;
 * - `tag_ids`: the contact's tags (sorted), set by the statement triggers on crm.contact_tags.
 * Both are recomputed from their table after the contact rows are locked (FOR NO KEY UPDATE, in id
 * order), in a statement of its own: under READ COMMITTED it then sees every write that held the
 * lock before, so two transactions adding an action or a tag to one contact at once cannot leave
 * one of them out.
 *
 * The counters (four slot rows per group, as crm.contact_group_counters; 0 rows are left in place):
 * - crm.stream_counters: contacts in each user's action stream, and in anyone's (`assignee_id`
 *   '*'), per letter: GET /team_stream's blocks;
 * - crm.contact_stream_counters: a user's stream by the contact groups of
 *   crm.contact_group_counters (owner, status, lead source, letter, starred, pending deal): the
 *   `action_stream_count` of statuses, lead sources and system tags;
 * - crm.tag_counters: contacts per tag and letter (`stream_of` ''), and those in each user's
 *   stream (`stream_of` the user): the tags' `counts` and `action_stream_count`.
 * A contact's contribution is bounded: its tags (at most 100) times its stream's users plus one.
 */

/** The next-action statuses as they were when this migration was written (frozen: migrations are history). */
const NEXT = `('asap', 'date', 'date_time', 'waiting')`;

/** Columns of crm.contacts this migration adds (not shown by contact documents). */
export const STREAM_TAG_COLUMNS = ['stream_ids', 'tag_ids'] as const;

const ID = 'varchar(24)';

/**
 * The counter tables: their group columns (the key, before `slot`; NOT NULL, '' or '*' where the
 * doc comment says) and which part of {@link contributions} feeds them.
 */
const COUNTERS = [
  { table: 'stream_counters', group: { account_id: ID, assignee_id: ID, letter: 'char(1)' }, part: 'stream' },
  {
    table: 'contact_stream_counters',
    group: {
      account_id: ID,
      assignee_id: ID,
      owner_id: ID,
      status_id: ID,
      lead_source_id: ID,
      letter: 'char(1)',
      starred: 'boolean',
      pending: 'boolean',
    },
    part: 'contactStream',
  },
  // stream_of before tag_id: a summary reads two ranges ('' and the caller's), not every user's rows of every tag
  { table: 'tag_counters', group: { account_id: ID, stream_of: ID, tag_id: ID, letter: 'char(1)' }, part: 'tag' },
] as const;

const keyOf = (group: object) => Object.keys(group).join(', ');

/** What the counters depend on: a contact whose row differs in none of these is counted as it was. */
const COMPARED =
  'id, deleted_at IS NULL, stream_ids, tag_ids, letter, owner_id, status_id, lead_source_id, starred, pending_deals_count > 0';

/** The contributions of the non-deleted rows of `table` (a transition table, or crm.contacts) to each counter table, signed. */
function contributions(table: string, sign: '' | '-', where: string) {
  const slot = `(hashtext(c.id) & 3)::smallint AS slot, ${sign}1 AS n`;
  return {
    stream: `SELECT c.account_id, s.assignee_id, c.letter, ${slot}
             FROM ${table} c CROSS JOIN LATERAL unnest(c.stream_ids || '{*}'::varchar[]) s(assignee_id)
             WHERE c.deleted_at IS NULL AND cardinality(c.stream_ids) > 0 AND ${where}`,
    contactStream: `SELECT c.account_id, s.assignee_id, c.owner_id, c.status_id, coalesce(c.lead_source_id, '') AS lead_source_id, c.letter,
                           c.starred, c.pending_deals_count > 0 AS pending, ${slot}
                    FROM ${table} c CROSS JOIN LATERAL unnest(c.stream_ids) s(assignee_id)
                    WHERE c.deleted_at IS NULL AND ${where}`,
    tag: `SELECT c.account_id, t.tag_id, s.stream_of, c.letter, ${slot}
          FROM ${table} c CROSS JOIN LATERAL unnest(c.tag_ids) t(tag_id) CROSS JOIN LATERAL unnest(c.stream_ids || '{""}'::varchar[]) s(stream_of)
          WHERE c.deleted_at IS NULL AND ${where}`,
  };
}

/** Adds the summed contributions of `parts` to `table`, in key order (concurrent writers lock counter rows in one order). */
function apply(table: string, key: string, parts: string[]): string {
  const cols = key.split(', ').map((c) => `x.${c}`);
  return `
      INSERT INTO crm.${table} AS k (${key}, slot, contacts_count)
      SELECT ${cols.join(', ')}, x.slot, sum(x.n) FROM (${parts.join(' UNION ALL ')}) x
      GROUP BY ${cols.join(', ')}, x.slot HAVING sum(x.n) <> 0
      ORDER BY ${cols.join(', ')}, x.slot
      ON CONFLICT (${key}, slot) DO UPDATE SET contacts_count = k.contacts_count + excluded.contacts_count`;
}

/** A statement trigger function of crm.contacts applying the contributions of `sides` to the three counter tables. */
function contactsCounterFunction(name: string, sides: Array<{ table: string; sign: '' | '-' }>, where: string, guard = ''): string {
  const parts = sides.map(({ table, sign }) => contributions(table, sign, where));
  return `
    CREATE OR REPLACE FUNCTION crm.${name}() RETURNS trigger LANGUAGE plpgsql AS $fn$
    BEGIN
      ${guard}
      ${COUNTERS.map(
        ({ table, group, part }) =>
          `${apply(
            table,
            keyOf(group),
            parts.map((p) => p[part]),
          )};`,
      ).join('\n')}
      RETURN NULL;
    END
    $fn$`;
}

/**
 * An UPDATE that changes nothing counted returns at once (most updates of a contact: a note's last
 * activity, a rename). The test is a set difference of the compared columns, not a join of the
 * transition tables: a trigger's statements keep the plan of their first run (one row: a nested
 * loop), which a join would turn quadratic for a bulk update (decisions.md "Bulk updates of
 * contacts stay linear"). Past it, every row's contribution is added, old rows negated, and those
 * of unchanged rows cancel in the grouping.
 */
const UPDATE_GUARD = `
      IF NOT EXISTS (SELECT ${COMPARED} FROM new_rows EXCEPT SELECT ${COMPARED} FROM old_rows) THEN
        RETURN NULL;
      END IF;`;

const CONTACT_TRIGGERS = [
  {
    name: 'contacts_stream_tag_counters_insert',
    event: 'INSERT',
    referencing: 'NEW TABLE AS new_rows',
    fn: contactsCounterFunction('contacts_stream_tag_counters_insert', [{ table: 'new_rows', sign: '' }], 'TRUE'),
  },
  {
    name: 'contacts_stream_tag_counters_update',
    event: 'UPDATE',
    referencing: 'OLD TABLE AS old_rows NEW TABLE AS new_rows',
    fn: contactsCounterFunction(
      'contacts_stream_tag_counters_update',
      [
        { table: 'new_rows', sign: '' },
        { table: 'old_rows', sign: '-' },
      ],
      'TRUE',
      UPDATE_GUARD,
    ),
  },
  {
    name: 'contacts_stream_tag_counters_delete',
    event: 'DELETE',
    referencing: 'OLD TABLE AS old_rows',
    fn: contactsCounterFunction('contacts_stream_tag_counters_delete', [{ table: 'old_rows', sign: '-' }], 'TRUE'),
  },
];

/**
 * The contacts of `ids` (a query of `contact_id`s) as `touched`, their rows locked in id order, then
 * `update` (a statement over them) in a statement of its own: it sees every write committed by a
 * transaction that held one of those locks before. The contacts are joined to `unnest(touched)`,
 * never filtered by `= ANY(touched)`: with a large array (a bulk insert) the plan would scan the
 * contacts comparing each with every id.
 */
function lockThen(ids: string, update: string): string {
  return `
      touched := ARRAY(SELECT DISTINCT x.contact_id FROM (${ids}) x ORDER BY 1);
      IF cardinality(touched) = 0 THEN RETURN NULL; END IF;
      PERFORM 1 FROM crm.contacts c JOIN unnest(touched) t(id) ON c.id = t.id ORDER BY c.id FOR NO KEY UPDATE OF c;
      ${update};`;
}

const STREAM_IDS = `ARRAY(SELECT DISTINCT a.assignee_id FROM crm.actions a WHERE a.contact_id = c.id AND a.status IN ${NEXT} ORDER BY 1)::varchar(24)[]`;
const TAG_IDS = `ARRAY(SELECT ct.tag_id FROM crm.contact_tags ct WHERE ct.contact_id = c.id ORDER BY 1)::varchar(24)[]`;

/** Actions whose change can move a contact in or out of a stream: a next action added, removed, or moved to another contact or assignee. */
const ACTION_TRIGGERS = [
  {
    name: 'actions_stream_ids_insert',
    event: 'INSERT',
    referencing: 'NEW TABLE AS new_rows',
    touched: `SELECT contact_id FROM new_rows WHERE status IN ${NEXT}`,
  },
  {
    name: 'actions_stream_ids_update',
    event: 'UPDATE',
    referencing: 'OLD TABLE AS old_rows NEW TABLE AS new_rows',
    // Every contact with a next action before or after (a superset of those whose stream changed:
    // no join of the transition tables, see UPDATE_GUARD; an unchanged stream is not written).
    touched: `SELECT contact_id FROM old_rows WHERE status IN ${NEXT} UNION ALL SELECT contact_id FROM new_rows WHERE status IN ${NEXT}`,
  },
  {
    name: 'actions_stream_ids_delete',
    event: 'DELETE',
    referencing: 'OLD TABLE AS old_rows',
    touched: `SELECT contact_id FROM old_rows WHERE status IN ${NEXT}`,
  },
];

/**
 * crm.contact_tags' statement function (migration 1764800800000's contact_tags_doc_version), now
 * also keeping `tag_ids`: the contacts locked first, then their documents bumped and queued and
 * their tag ids recomputed in one UPDATE.
 */
const CONTACT_TAGS_FUNCTION = `
    CREATE OR REPLACE FUNCTION crm.contact_tags_doc_version() RETURNS trigger LANGUAGE plpgsql AS $fn$
    DECLARE touched varchar[];
    BEGIN
      ${lockThen(
        'SELECT contact_id FROM changed_rows',
        `WITH bumped AS (
          UPDATE crm.contacts c SET doc_version = c.doc_version + 1, tag_ids = ${TAG_IDS}
          FROM unnest(touched) t(id) WHERE c.id = t.id
          RETURNING c.id, c.account_id
        )
        INSERT INTO crm.contact_document_queue (contact_id, account_id) SELECT id, account_id FROM bumped`,
      )}
      RETURN NULL;
    END
    $fn$`;

export class StreamTagCounters1764801100000 implements MigrationInterface {
  name = 'StreamTagCounters1764801100000';

  async up(q: QueryRunner): Promise<void> {
    // Constant defaults: no rewrite of the table.
    await q.query(`ALTER TABLE crm.contacts ADD COLUMN stream_ids varchar(24)[] NOT NULL DEFAULT '{}'`);
    await q.query(`ALTER TABLE crm.contacts ADD COLUMN tag_ids varchar(24)[] NOT NULL DEFAULT '{}'`);
    for (const { table, group } of COUNTERS)
      await q.query(`
        CREATE TABLE crm.${table} (
          ${Object.entries(group)
            .map(([column, type]) => `${column} ${type} NOT NULL,`)
            .join('\n')}
          slot smallint NOT NULL CHECK (slot BETWEEN 0 AND 3),
          contacts_count integer NOT NULL DEFAULT 0,
          PRIMARY KEY (${keyOf(group)}, slot)
        )`);

    // No write may slip between the backfill and the triggers.
    await q.query(`LOCK TABLE crm.contacts, crm.actions, crm.contact_tags, crm.tags IN SHARE ROW EXCLUSIVE MODE`);
    // The contacts' columns (the counters' triggers do not exist yet, and no other trigger counts these columns).
    await q.query(`
      UPDATE crm.contacts c SET stream_ids = ${STREAM_IDS}
      WHERE c.id IN (SELECT contact_id FROM crm.actions WHERE status IN ${NEXT})`);
    await q.query(`UPDATE crm.contacts c SET tag_ids = ${TAG_IDS} WHERE c.id IN (SELECT contact_id FROM crm.contact_tags)`);
    const all = contributions('crm.contacts', '', 'TRUE');
    for (const { table, group, part } of COUNTERS) await q.query(apply(table, keyOf(group), [all[part]]));

    for (const t of CONTACT_TRIGGERS) {
      await q.query(t.fn);
      await q.query(
        `CREATE TRIGGER ${t.name} AFTER ${t.event} ON crm.contacts REFERENCING ${t.referencing} FOR EACH STATEMENT EXECUTE FUNCTION crm.${t.name}()`,
      );
    }
    for (const t of ACTION_TRIGGERS) {
      await q.query(`
        CREATE FUNCTION crm.${t.name}() RETURNS trigger LANGUAGE plpgsql AS $fn$
        DECLARE touched varchar[];
        BEGIN
          ${lockThen(t.touched, `UPDATE crm.contacts c SET stream_ids = ${STREAM_IDS} FROM unnest(touched) t(id) WHERE c.id = t.id AND c.stream_ids <> ${STREAM_IDS}`)}
          RETURN NULL;
        END
        $fn$`);
      await q.query(
        `CREATE TRIGGER ${t.name} AFTER ${t.event} ON crm.actions REFERENCING ${t.referencing} FOR EACH STATEMENT EXECUTE FUNCTION crm.${t.name}()`,
      );
    }
    await q.query(CONTACT_TAGS_FUNCTION);
    // A deleted tag's counter rows, emptied by the cascade that takes it off its contacts, go with
    // it at commit (a statement trigger of the tag's DELETE runs before that cascade's).
    await q.query(`
      CREATE FUNCTION crm.tags_counters_delete() RETURNS trigger LANGUAGE plpgsql AS $fn$
      BEGIN
        DELETE FROM crm.tag_counters WHERE account_id = OLD.account_id AND tag_id = OLD.id AND contacts_count = 0;
        RETURN NULL;
      END
      $fn$`);
    await q.query(
      `CREATE CONSTRAINT TRIGGER tags_counters_delete AFTER DELETE ON crm.tags DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION crm.tags_counters_delete()`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER tags_counters_delete ON crm.tags`);
    await q.query(`DROP FUNCTION crm.tags_counters_delete()`);
    await q.query(CONTACT_TAGS_DOC_FUNCTION());
    for (const t of ACTION_TRIGGERS) {
      await q.query(`DROP TRIGGER ${t.name} ON crm.actions`);
      await q.query(`DROP FUNCTION crm.${t.name}()`);
    }
    for (const t of CONTACT_TRIGGERS) {
      await q.query(`DROP TRIGGER ${t.name} ON crm.contacts`);
      await q.query(`DROP FUNCTION crm.${t.name}()`);
    }
    for (const { table } of COUNTERS) await q.query(`DROP TABLE crm.${table}`);
    await q.query(`ALTER TABLE crm.contacts DROP COLUMN tag_ids`);
    await q.query(`ALTER TABLE crm.contacts DROP COLUMN stream_ids`);
  }
}
