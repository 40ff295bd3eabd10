import { basicAuth, type CreatedAccount } from '@crm/testing';
import { Webhook } from 'standardwebhooks';
import { until, type ReceivedHook } from '../e2e/webhook-helpers';
import type { SeenError, WriteLoad } from './write-load';

/** What one drill measured; printed as one line and asserted by the spec. */
export interface DrillFigures {
  drill: string;
  acknowledged: number;
  started: number;
  attempts: number;
  /** Records found per key: the largest count (1 = every key once). */
  recordsPerKeyMax: number;
  /** Acknowledged keys with no record, and keys with more than one record. */
  missing: string[];
  duplicates: string[];
  /** Records whose key was never acknowledged (a write the client gave up on). */
  unacknowledgedRecords: number;
  /** Acknowledged id differs from the one record of its key. */
  idMismatches: number;
  eventsDelivered: number;
  eventsExpected: number;
  undelivered: string[];
  /** Deliveries beyond the first of one webhook-id, and the most deliveries of one id. */
  duplicateDeliveries: number;
  maxDeliveriesPerId: number;
  /** Notes delivered under more than one webhook-id (one event must keep one id). */
  notesUnderTwoIds: number;
  badSignatures: number;
  errors: number;
  errorKinds: Record<string, number>;
  /** First and last error, in s from the fault (undefined without errors). */
  errorWindow?: [number, number];
  failedConnections: number;
  gaveUp: number;
  refused: number;
  /** Account B saw none of A's records; A's note ids were 404 for B. */
  tenantLeaks: number;
}

interface NotesPage {
  data: { notes: Array<{ note: { id: string; text: string } }>; total_count?: number; max_page?: number };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** GET /contacts/{id}/notes, every page, as `who` (retried on a 5xx: the check must not fail on a blip of its own). */
export async function listNotes(apiUrl: string, who: CreatedAccount, contactId: string): Promise<Array<{ id: string; text: string }>> {
  const all: Array<{ id: string; text: string }> = [];
  for (let page = 1; page < 1000; page += 1) {
    let body: NotesPage | undefined;
    for (let attempt = 0; attempt < 10 && !body; attempt += 1) {
      const res = await fetch(`${apiUrl}/contacts/${contactId}/notes?page=${page}&per_page=100`, {
        headers: { authorization: basicAuth(who.user.id, who.user.api_key) },
      });
      if (res.status === 200) body = (await res.json()) as NotesPage;
      else if (res.status < 500) throw new Error(`GET notes page ${page} answered ${res.status}: ${await res.text()}`);
      else await sleep(500);
    }
    if (!body) throw new Error(`GET notes page ${page} kept failing`);
    all.push(...body.data.notes.map((n) => n.note));
    if (body.data.notes.length < 100) break;
  }
  return all;
}

export interface CheckContext {
  drill: string;
  apiUrl: string;
  owner: CreatedAccount;
  stranger: CreatedAccount;
  contactId: string;
  load: WriteLoad;
  /** Extra error sources (e.g. the read probe). */
  moreErrors?: SeenError[];
  hooks: () => ReceivedHook[];
  signingSecret: string;
  faultAt: number;
  failedConnections: number;
  /** How long to wait for the webhooks of every record (default 90 s). */
  drainMs?: number;
}

/** Counts what the drill left: records per key, deliveries per record, tenant isolation, errors. */
export async function checkDrill(ctx: CheckContext): Promise<DrillFigures> {
  const { load } = ctx;
  const notes = await listNotes(ctx.apiUrl, ctx.owner, ctx.contactId);
  const perKey = new Map<string, string[]>();
  for (const note of notes) {
    const key = /^load (\S+)$/.exec(note.text)?.[1] ?? `(other) ${note.text}`;
    perKey.set(key, [...(perKey.get(key) ?? []), note.id]);
  }
  const missing = [...load.acknowledged.keys()].filter((k) => !perKey.has(k));
  const duplicates = [...perKey].filter(([, ids]) => ids.length > 1).map(([k]) => k);
  const unacknowledgedRecords = [...perKey.keys()].filter((k) => !load.acknowledged.has(k)).length;
  const idMismatches = [...load.acknowledged].filter(([k, id]) => perKey.get(k)?.length === 1 && perKey.get(k)![0] !== id).length;

  // Every record's note/created event reaches the receiver (waits for the webhook backlog to drain).
  const noteIds = new Set(notes.map((n) => n.id));
  const deliveredIds = () => {
    const ids = new Set<string>();
    for (const h of ctx.hooks()) {
      const id = (h.json.data?.note as { id?: string } | undefined)?.id;
      if (h.json.type === 'note' && h.json.reason === 'created' && id && noteIds.has(id)) ids.add(id);
    }
    return ids;
  };
  await until('every record delivered', () => deliveredIds().size >= noteIds.size, ctx.drainMs ?? 90_000, 250).catch(() => undefined);
  const delivered = deliveredIds();
  const mine = ctx.hooks().filter((h) => noteIds.has((h.json.data?.note as { id?: string } | undefined)?.id ?? ''));
  const perWebhookId = new Map<string, number>();
  const idsPerNote = new Map<string, Set<string>>();
  let badSignatures = 0;
  const verifier = new Webhook(ctx.signingSecret);
  for (const h of mine) {
    const webhookId = h.headers['webhook-id']!;
    perWebhookId.set(webhookId, (perWebhookId.get(webhookId) ?? 0) + 1);
    const noteId = (h.json.data.note as { id: string }).id;
    idsPerNote.set(noteId, (idsPerNote.get(noteId) ?? new Set()).add(webhookId));
    try {
      verifier.verify(h.body, h.headers);
    } catch {
      badSignatures += 1;
    }
  }

  // Tenant isolation: B's list has none of A's notes, A's note ids are 404 for B, A's contact too.
  let tenantLeaks = 0;
  const asB = { authorization: basicAuth(ctx.stranger.user.id, ctx.stranger.user.api_key) };
  const bList = await fetch(`${ctx.apiUrl}/notes?per_page=100`, { headers: asB });
  const bText = await bList.text();
  if (bList.status !== 200) tenantLeaks += 1;
  for (const id of noteIds) if (bText.includes(id)) tenantLeaks += 1;
  const sample = [...noteIds].filter((_, i) => i % Math.max(1, Math.floor(noteIds.size / 10)) === 0).slice(0, 10);
  for (const id of sample) if ((await fetch(`${ctx.apiUrl}/notes/${id}`, { headers: asB })).status !== 404) tenantLeaks += 1;
  if ((await fetch(`${ctx.apiUrl}/contacts/${ctx.contactId}`, { headers: asB })).status !== 404) tenantLeaks += 1;
  if ((await fetch(`${ctx.apiUrl}/contacts/${ctx.contactId}/notes`, { headers: asB })).status !== 404) tenantLeaks += 1;

  const errors = [...load.errors, ...(ctx.moreErrors ?? [])].sort((a, b) => a.at - b.at);
  const errorKinds: Record<string, number> = {};
  for (const e of errors) errorKinds[e.kind] = (errorKinds[e.kind] ?? 0) + 1;
  const rel = (t: number) => Math.round((t - ctx.faultAt) / 100) / 10;
  return {
    drill: ctx.drill,
    acknowledged: load.acknowledged.size,
    started: load.started,
    attempts: load.attempts,
    recordsPerKeyMax: Math.max(0, ...[...perKey.values()].map((ids) => ids.length)),
    missing,
    duplicates,
    unacknowledgedRecords,
    idMismatches,
    eventsDelivered: delivered.size,
    eventsExpected: noteIds.size,
    undelivered: [...noteIds].filter((id) => !delivered.has(id)),
    duplicateDeliveries: [...perWebhookId.values()].reduce((sum, n) => sum + n - 1, 0),
    maxDeliveriesPerId: Math.max(0, ...perWebhookId.values()),
    notesUnderTwoIds: [...idsPerNote.values()].filter((s) => s.size > 1).length,
    badSignatures,
    errors: errors.length,
    errorKinds,
    errorWindow: errors.length > 0 ? [rel(errors[0]!.at), rel(errors[errors.length - 1]!.at)] : undefined,
    failedConnections: ctx.failedConnections,
    gaveUp: load.gaveUp.length,
    refused: load.refused.length,
    tenantLeaks,
  };
}

/** The drill's one printed line. */
export function describeFigures(f: DrillFigures): string {
  const window = f.errorWindow ? `${f.errorWindow[0]} s .. ${f.errorWindow[1]} s after the fault` : 'none';
  return (
    `[topology] drill ${f.drill}: acknowledged writes ${f.acknowledged} (of ${f.started} started, ${f.attempts} attempts), ` +
    `records per key max ${f.recordsPerKeyMax}, duplicates ${f.duplicates.length}, missing ${f.missing.length}, ` +
    `events delivered ${f.eventsDelivered}/${f.eventsExpected}, duplicate deliveries ${f.duplicateDeliveries} (max ${f.maxDeliveriesPerId} per id), ` +
    `errors seen ${f.errors} ${JSON.stringify(f.errorKinds)} window ${window}, failed connections ${f.failedConnections}, ` +
    `tenant leaks ${f.tenantLeaks}, bad signatures ${f.badSignatures}`
  );
}
