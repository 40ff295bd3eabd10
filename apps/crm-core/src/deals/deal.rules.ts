import {
  ApiError,
  ErrorName,
  type CreateDealRequest,
  type DealFieldInput,
  type DealItemInput,
  type DealStatus,
  type PatchDealRequest,
  type Role,
} from '@crm/contracts';
import { validateFieldValue } from '../fields/field-values';
import { normalizeId, pick } from '../records/record-common';

/**
 * The rules of deals (spec "Deal", decisions.md "Deals and actions"): defaults, status
 * transitions, pipelines, amounts and commission, the admin rule on deal fields. No I/O.
 */

/** The stored, writable state of a deal (crm.deals columns). */
export interface DealState {
  contact_id: string;
  owner_id: string;
  pipeline_id: string;
  sales_pipeline_id: string;
  name: string;
  text: string;
  status: DealStatus;
  stage: number | null;
  last_stage: number | null;
  expected_close_date: string;
  close_date: string;
  date: string;
  amount: number;
  months: number;
  cost: number;
  commission_base: string;
  commission_type: string;
  commission: number;
  commission_percentage: number;
  reason_lost_id: string | null;
  deal_fields: Record<string, unknown>;
  previous_pipeline_stages: Record<string, number>;
}

/** A pipeline (or sales pipeline) as deals need it. */
export interface PipelineRef {
  id: string;
  kind: 'pipeline' | 'sales';
  is_default: boolean;
  stages: Array<{ stage: number; label: string }>;
}

/** Definition of a deal field as the Deal's `deal_fields` entries show it. */
export interface DealFieldDefinition {
  id: string;
  name: string;
  type: string;
  position: number;
  choices: string[] | null;
}

/** What PUT and PATCH may send (the request without its id). */
export type DealFieldsSent = Omit<PatchDealRequest, 'deal_id'>;

const STAGE_MESSAGE = 'stage must be an integer greater than 0 and less than 100';

/** Money rounded to cents (what numeric(18, 2) keeps). */
export function money(value: number): number {
  return Math.round(value * 100) / 100;
}

/** The amounts a deal derives: totals over its months, and the margin. */
export function dealTotals(amount: number, months: number, cost: number): { total_amount: number; total_cost: number; margin: number } {
  const total_amount = money(amount * months);
  const total_cost = money(cost * months);
  return { total_amount, total_cost, margin: money(total_amount - total_cost) };
}

/** Stage of a new pending deal when none is sent: the pipeline's first stage (10 without stages). */
export function firstStageOf(pipeline: PipelineRef | undefined): number {
  const stages = (pipeline?.stages ?? []).map((s) => Number(s.stage)).filter((n) => Number.isInteger(n) && n > 0 && n < 100);
  return stages.length > 0 ? Math.min(...stages) : 10;
}

const NO_PIPELINE = 'pipeline_id names no pipeline of the account';
const NO_SALES_PIPELINE = 'sales_pipeline_id names no sales pipeline of the account';

/** The pipeline ids a request names (404 for one that cannot be an id). */
export function wantedPipelines(
  pipelineId?: string | null,
  salesPipelineId?: string | null,
): { pipeline: string | null; sales: string | null } {
  const wanted = {
    pipeline: pipelineId ? normalizeId(pipelineId) : null,
    sales: salesPipelineId ? normalizeId(salesPipelineId) : null,
  };
  if (pipelineId && !wanted.pipeline) throw ApiError.notFound(NO_PIPELINE);
  if (salesPipelineId && !wanted.sales) throw ApiError.notFound(NO_SALES_PIPELINE);
  return wanted;
}

/** Picks the deal pipeline and sales pipeline from candidate rows: the ones named (404 unless of the right kind), else the defaults. */
export function pickPipelines(
  rows: readonly PipelineRef[],
  pipelineId?: string | null,
  salesPipelineId?: string | null,
): { pipeline: PipelineRef; sales: PipelineRef } {
  const wanted = wantedPipelines(pipelineId, salesPipelineId);
  const choose = (kind: 'pipeline' | 'sales', id: string | null): PipelineRef => {
    const found = id ? rows.find((r) => r.id === id && r.kind === kind) : rows.find((r) => r.kind === kind && r.is_default);
    if (!found) throw ApiError.notFound(kind === 'pipeline' ? NO_PIPELINE : NO_SALES_PIPELINE);
    return found;
  };
  return { pipeline: choose('pipeline', wanted.pipeline), sales: choose('sales', wanted.sales) };
}

/** A pending deal's stage: an integer with 0 < stage < 100 (400 otherwise); won and lost deals have none. */
export function assertStage(state: Pick<DealState, 'status' | 'stage'>): void {
  if (state.status !== 'pending') return;
  if (state.stage === null || !Number.isInteger(state.stage) || state.stage <= 0 || state.stage >= 100)
    throw ApiError.invalid({ stage: STAGE_MESSAGE });
}

/**
 * A new deal (POST /contacts/{id}/deals): status pending, the pipeline's first stage, dates today,
 * amounts 0, months 1. A stage sent for a won or lost deal is ignored (decisions.md).
 */
export function newDeal(
  request: CreateDealRequest,
  context: { contactId: string; ownerId: string; pipeline: PipelineRef; salesPipelineId: string; today: string },
): DealState {
  const { today } = context;
  const status = request.status ?? 'pending';
  const state: DealState = {
    contact_id: context.contactId,
    owner_id: context.ownerId,
    pipeline_id: context.pipeline.id,
    sales_pipeline_id: context.salesPipelineId,
    name: request.name!,
    text: request.text ?? '',
    status,
    stage: status === 'pending' ? (request.stage ?? firstStageOf(context.pipeline)) : null,
    last_stage: null,
    expected_close_date: request.expected_close_date ?? today,
    close_date: request.close_date ?? today,
    date: request.date ?? today,
    amount: request.amount ?? 0,
    months: request.months ?? 1,
    cost: request.cost ?? 0,
    commission_base: request.commission_base ?? '',
    commission_type: request.commission_type ?? '',
    commission: request.commission ?? 0,
    commission_percentage: request.commission_percentage ?? 0,
    reason_lost_id: request.reason_lost_id || null,
    deal_fields: {},
    previous_pipeline_stages: {},
  };
  assertStage(state);
  return state;
}

/**
 * Stage, last stage and close date after a status change (decisions.md "Deals and actions"):
 * pending -> won/lost keeps the stage as last_stage and sets close_date (today unless sent);
 * won/lost -> pending reopens at the stage sent, else last_stage, else 10; won <-> lost keeps
 * last_stage and ignores a stage sent. `defaultStage`: the stage of a pending deal that stays
 * pending without a stage sent on PUT (the pipeline's first stage).
 */
export function transition(
  current: Pick<DealState, 'status' | 'stage' | 'last_stage' | 'close_date'>,
  nextStatus: DealStatus,
  sent: { stage?: number | null; close_date?: string | null },
  partial: boolean,
  today: string,
  defaultStage: number | null,
): Pick<DealState, 'stage' | 'last_stage' | 'close_date'> {
  const sentStage = sent.stage ?? undefined;
  const sentClose = sent.close_date ?? undefined;
  const keptClose = sentClose ?? (partial ? current.close_date : today);
  if (current.status === 'pending' && nextStatus === 'pending')
    return { stage: sentStage ?? (partial ? current.stage : defaultStage), last_stage: null, close_date: keptClose };
  // Closing: remember the stage it closed from.
  if (current.status === 'pending') return { stage: null, last_stage: current.stage, close_date: sentClose ?? today };
  // Reopening.
  if (nextStatus === 'pending') return { stage: sentStage ?? current.last_stage ?? 10, last_stage: null, close_date: keptClose };
  // won <-> lost, or staying closed: a stage sent is ignored.
  return { stage: null, last_stage: current.last_stage, close_date: keptClose };
}

/**
 * Leaving a pipeline remembers the stage the deal had in it (its last stage when closed); coming
 * back to a pipeline restores the stage remembered there, unless a stage is sent.
 */
export function changePipeline(current: DealState, next: DealState, sentStage: number | null | undefined): DealState {
  if (next.pipeline_id === current.pipeline_id) return next;
  const leftAt = current.status === 'pending' ? current.stage : current.last_stage;
  const previous = { ...current.previous_pipeline_stages };
  if (leftAt !== null) previous[current.pipeline_id] = leftAt;
  const back = current.previous_pipeline_stages[next.pipeline_id];
  const restore = next.status === 'pending' && (sentStage === undefined || sentStage === null) && back !== undefined;
  return { ...next, previous_pipeline_stages: previous, stage: restore ? back : next.stage };
}

/**
 * PUT (replace; `partial` as PATCH) of a deal's own values, over the references the service
 * resolved (contact, owner, and the pipelines when named or replaced). PUT gives an absent value
 * its create default; PATCH keeps it. Returns the new state (stage checked).
 */
export function updatedDeal(
  current: DealState,
  request: DealFieldsSent,
  context: {
    partial: boolean;
    today: string;
    contactId: string;
    ownerId: string;
    pipelines: { pipeline: PipelineRef; sales: PipelineRef } | null;
  },
): DealState {
  const { partial, today } = context;
  const value = <T>(sent: T | null | undefined, currentValue: T, fallback: T): T => pick(partial, sent, currentValue, fallback);
  let next: DealState = { ...current, contact_id: context.contactId, owner_id: context.ownerId };
  let defaultStage = current.stage;
  if (context.pipelines) {
    next.pipeline_id = context.pipelines.pipeline.id;
    next.sales_pipeline_id = context.pipelines.sales.id;
    if (!partial) defaultStage = firstStageOf(context.pipelines.pipeline);
  }
  if (request.name !== undefined && request.name !== null) next.name = request.name;
  next.text = value(request.text, current.text, '');
  next.date = value(request.date, current.date, today);
  next.expected_close_date = value(request.expected_close_date, current.expected_close_date, today);
  next.amount = value(request.amount, current.amount, 0);
  next.months = value(request.months, current.months, 1);
  next.cost = value(request.cost, current.cost, 0);
  next.commission_base = value(request.commission_base, current.commission_base, '');
  next.commission_type = value(request.commission_type, current.commission_type, '');
  next.commission = value(request.commission, current.commission, 0);
  next.commission_percentage = value(request.commission_percentage, current.commission_percentage, 0);
  next.reason_lost_id = request.reason_lost_id === undefined ? (partial ? current.reason_lost_id : null) : request.reason_lost_id || null;
  next.status = request.status ?? (partial ? current.status : 'pending');
  next = { ...next, ...transition(current, next.status, request, partial, today, defaultStage) };
  next = changePipeline(current, next, request.stage);
  assertStage(next);
  return next;
}

/** With deal items, amount and cost per month are the items' totals (price x qty, cost x qty); null without items. */
export function itemAmounts(items: readonly DealItemInput[]): { amount: number; cost: number } | null {
  if (items.length === 0) return null;
  return {
    amount: money(items.reduce((sum, i) => sum + (i.price ?? 0) * (i.qty ?? 1), 0)),
    cost: money(items.reduce((sum, i) => sum + (i.cost ?? 0) * (i.qty ?? 1), 0)),
  };
}

/**
 * Amounts rounded as stored (numeric(18, 2), percentage numeric(9, 4)), so the response shows what
 * is stored; a percentage commission is computed from its base (the total amount, or the margin).
 * Other commission types keep the commission sent.
 */
export function withCommission(state: DealState): DealState {
  const next = {
    ...state,
    amount: money(state.amount),
    cost: money(state.cost),
    commission: money(state.commission),
    commission_percentage: Math.round(state.commission_percentage * 10_000) / 10_000,
  };
  if (next.commission_type !== 'percentage') return next;
  const totals = dealTotals(next.amount, next.months, next.cost);
  const base = next.commission_base === 'margin' ? totals.margin : totals.total_amount;
  return { ...next, commission: money((base * next.commission_percentage) / 100) };
}

/** Deal field values checked against the account's deal fields: unknown field 404, bad value 400; a null value unsets. */
export function dealFieldValues(
  definitions: ReadonlyMap<string, DealFieldDefinition>,
  inputs: readonly DealFieldInput[],
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [i, entry] of inputs.entries()) {
    const id = normalizeId(entry.deal_field.id);
    const def = id ? definitions.get(id) : undefined;
    if (!id || !def) throw ApiError.notFound(`deal_fields.${i}.deal_field.id names no deal field of the account`);
    const check = validateFieldValue({ type: def.type as never, choices: def.choices }, entry.value);
    if (!check.ok) throw ApiError.invalid({ [`deal_fields.${i}.value`]: `deal_fields.${i}.value ${check.message}` });
    if (check.value === null) delete out[id];
    else out[id] = check.value;
  }
  return out;
}

/** Only account administrators set deal fields on a new deal (403). */
export function assertMaySetDealFields(role: Role, fields: Record<string, unknown>): void {
  if (Object.keys(fields).length > 0 && role !== 'admin')
    throw new ApiError(ErrorName.NoPermission, 'Only account administrators can set deal fields');
}

/** Only account administrators change deal fields (403); others may send them unchanged. */
export function assertMayChangeDealFields(role: Role, fields: Record<string, unknown>, current: Record<string, unknown>): void {
  if (role !== 'admin' && !sameValues(fields, current))
    throw new ApiError(ErrorName.NoPermission, 'Only account administrators can change deal fields');
}

function sameValues(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
  return keys.every((k) => JSON.stringify(a[k] ?? null) === JSON.stringify(b[k] ?? null));
}

/** `fields` of GET /deals: a comma-separated list of `<resource>(all)`; deals support `contacts`. True when contacts are wanted. */
export function wantsContacts(fields: string | undefined): boolean {
  if (fields === undefined || fields.trim() === '') return false;
  const parts = fields.split(',').map((f) => f.trim().toLowerCase());
  if (parts.some((f) => f !== 'contacts(all)'))
    throw ApiError.invalid({ fields: 'fields must be a comma-separated list of <resource>(all); supported: contacts' });
  return true;
}

/** GET /deals takes at most one of contact_id, company_id, tag, filter_id (400 naming each sent). */
export function assertOneScope(request: Partial<Record<'contact_id' | 'company_id' | 'tag' | 'filter_id', string>>): void {
  const scopes = (['contact_id', 'company_id', 'tag', 'filter_id'] as const).filter(
    (key) => request[key] !== undefined && request[key] !== '',
  );
  if (scopes.length > 1)
    throw ApiError.invalid(Object.fromEntries(scopes.map((key) => [key, 'use only one of contact_id, company_id, tag, filter_id'])));
}

/** The event of a deal update: `changed_to_<status>` when the status changed, else `updated`. */
export function updateReason(before: DealStatus, after: DealStatus): string {
  return after !== before ? `changed_to_${after}` : 'updated';
}
