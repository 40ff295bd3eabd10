// Shared by the benchmarks: contacts seeded with SQL through crm-core's own column rules
// (sort_name, letter, search_text from dist/apps/crm-core/src/contacts/contact-columns.js), so a
// benchmark starts from tens of thousands of realistic rows in seconds instead of minutes of API calls.
import { createRequire } from 'node:module';
import path from 'node:path';
import pg from 'pg';
import { root } from './lib.mjs';

/** crm-core's contact column rules, from the build (sortNameOf, letterOf, searchTextOf, fold). */
export function contactColumns() {
  return createRequire(import.meta.url)(path.join(root, 'dist/apps/crm-core/src/contacts/contact-columns.js'));
}

/** Deterministic pseudo-random numbers (mulberry32), so every run seeds the same data. */
export function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SYLLABLES = [
  'ka',
  'lo',
  'mi',
  'ra',
  'ten',
  'vo',
  'sa',
  'ber',
  'dan',
  'el',
  'fi',
  'gor',
  'ha',
  'is',
  'jo',
  'ku',
  'lin',
  'mar',
  'no',
  'pe',
  'qui',
  'ros',
  'sti',
  'tu',
  'ul',
  'ver',
  'wen',
  'xa',
  'yor',
  'zed',
];
export const FIRST = [
  'Ada',
  'Ben',
  'Cleo',
  'Dan',
  'Eve',
  'Finn',
  'Gia',
  'Hugo',
  'Ivy',
  'Jon',
  'Kai',
  'Lea',
  'Max',
  'Nia',
  'Oto',
  'Pia',
  'Quin',
  'Rosa',
  'Sam',
  'Tea',
  'Uma',
  'Vik',
  'Wes',
  'Xia',
  'Yan',
  'Zoe',
];

export function word(random, parts) {
  let w = '';
  for (let i = 0; i < parts; i += 1) w += SYLLABLES[Math.floor(random() * SYLLABLES.length)];
  return w.charAt(0).toUpperCase() + w.slice(1);
}

/** Objectid-like ids: 4-byte seconds + 8 random bytes, hex. */
export function objectId(random, seconds) {
  let hex = seconds.toString(16).padStart(8, '0');
  for (let i = 0; i < 16; i += 1) hex += Math.floor(random() * 16).toString(16);
  return hex;
}

/** One batch of contacts in one INSERT (unnest of arrays); the derived columns come computed. */
export async function insertContacts(db, accountId, ownerId, statusId, rows) {
  await db.query(
    `INSERT INTO crm.contacts (id, account_id, owner_id, status_id, first_name, last_name, company_id, company_name, phones, emails, sort_name, letter, search_text, created_at, modified_at)
     SELECT v.id, $1, $2, $3, v.f, v.l, v.cid, v.cname, v.ph::jsonb, v.em::jsonb, v.s, v.le, v.t, v.ca::timestamptz, v.ca::timestamptz
     FROM unnest($4::varchar[], $5::varchar[], $6::varchar[], $7::varchar[], $8::varchar[], $9::text[], $10::text[], $11::varchar[], $12::varchar[], $13::text[], $14::text[]) AS v(id, f, l, cid, cname, ph, em, s, le, t, ca)`,
    [
      accountId,
      ownerId,
      statusId,
      rows.map((r) => r.id),
      rows.map((r) => r.first),
      rows.map((r) => r.last),
      rows.map((r) => r.company?.id ?? null),
      rows.map((r) => r.company?.name ?? ''),
      rows.map((r) => JSON.stringify(r.phones)),
      rows.map((r) => JSON.stringify(r.emails)),
      rows.map((r) => r.sortName),
      rows.map((r) => r.letter),
      rows.map((r) => r.search),
      rows.map((r) => r.created),
    ],
  );
}

/**
 * `count` contacts in one account (a tenth as many companies, 40% of the contacts in one), owned by
 * `ownerId`, in batches of 2,500; vacuumed and analyzed. Returns their ids and last names.
 */
export async function seedContacts(dbUrl, accountId, ownerId, columns, count) {
  const random = rng(42);
  const db = new pg.Client({ connectionString: dbUrl });
  await db.connect();
  try {
    const [{ id: statusId }] = (await db.query('SELECT id FROM crm.statuses WHERE account_id = $1 AND is_lead', [accountId])).rows;
    const now = Math.floor(Date.now() / 1000);
    const companies = Array.from({ length: Math.floor(count / 10) }, (_, i) => ({
      id: objectId(random, now - 86_400 * 30),
      name: `${word(random, 2)} ${['Ltd', 'Inc', 'GmbH', 'Group', 'Labs'][i % 5]} ${i}`,
    }));
    await db.query(
      'INSERT INTO crm.companies (id, account_id, name) SELECT id, $1, name FROM unnest($2::varchar[], $3::varchar[]) AS v(id, name)',
      [accountId, companies.map((c) => c.id), companies.map((c) => c.name)],
    );
    const lastNames = [];
    const BATCH = 2500;
    for (let start = 0; start < count; start += BATCH) {
      const rows = [];
      for (let i = start; i < Math.min(count, start + BATCH); i += 1) {
        const first = FIRST[Math.floor(random() * FIRST.length)];
        const last = word(random, 2 + Math.floor(random() * 2));
        lastNames.push(last);
        const company = random() < 0.4 ? companies[Math.floor(random() * companies.length)] : null;
        const phones = [
          { type: 'work', value: `+1 (${200 + Math.floor(random() * 800)}) ${String(Math.floor(random() * 1e7)).padStart(7, '0')}` },
        ];
        const emails = [{ type: 'work', value: `${first.toLowerCase()}.${last.toLowerCase()}${i}@example.test` }];
        const parts = { first_name: first, last_name: last, company_name: company?.name ?? '', phones, emails, urls: [] };
        const sortName = columns.sortNameOf(parts);
        rows.push({
          id: objectId(random, now - 86_400 * 30 + i),
          first,
          last,
          company,
          phones,
          emails,
          sortName,
          letter: columns.letterOf(sortName),
          search: columns.searchTextOf(parts),
          created: new Date((now - 86_400 * 30 + i) * 1000).toISOString(),
        });
      }
      await insertContacts(db, accountId, ownerId, statusId, rows);
    }
    await db.query('VACUUM ANALYZE crm.contacts');
    await db.query('VACUUM ANALYZE crm.companies');
    const ids = (await db.query('SELECT id FROM crm.contacts WHERE account_id = $1', [accountId])).rows.map((r) => r.id);
    return { ids, lastNames };
  } finally {
    await db.end();
  }
}

/**
 * `count` pending deals (1,200 × 12 months) on contacts picked by `random` among `contactIds`, in one
 * INSERT through the deals' triggers (contact and company counters), as the API would leave them;
 * `pipelineId` and `salesPipelineId` are the account's defaults. Analyzed afterwards.
 */
export async function seedPendingDeals(dbUrl, accountId, ownerId, { pipelineId, salesPipelineId }, contactIds, count, random) {
  if (count <= 0) return;
  const db = new pg.Client({ connectionString: dbUrl });
  await db.connect();
  try {
    const now = Math.floor(Date.now() / 1000);
    const ids = Array.from({ length: count }, () => objectId(random, now));
    const contacts = Array.from({ length: count }, () => contactIds[Math.floor(random() * contactIds.length)]);
    await db.query(
      `INSERT INTO crm.deals (id, account_id, contact_id, owner_id, author_id, pipeline_id, sales_pipeline_id, name, status, stage,
                              expected_close_date, close_date, date, amount, months)
       SELECT v.id, $1, v.contact_id, $2, $2, $3, $4, 'Seeded deal ' || v.n, 'pending', 10, current_date, current_date, current_date, 1200, 12
       FROM unnest($5::varchar[], $6::varchar[]) WITH ORDINALITY AS v(id, contact_id, n)`,
      [accountId, ownerId, pipelineId, salesPipelineId, ids, contacts],
    );
    await db.query('ANALYZE crm.deals');
  } finally {
    await db.end();
  }
}
