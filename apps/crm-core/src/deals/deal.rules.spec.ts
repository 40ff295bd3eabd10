import { ApiError, ErrorName, type CreateDealRequest } from '@crm/contracts';
import {
  assertMayChangeDealFields,
  assertMaySetDealFields,
  assertOneScope,
  assertStage,
  changePipeline,
  dealFieldValues,
  dealTotals,
  firstStageOf,
  itemAmounts,
  money,
  newDeal,
  pickPipelines,
  transition,
  updateReason,
  updatedDeal,
  wantsContacts,
  withCommission,
  type DealFieldDefinition,
  type DealState,
  type PipelineRef,
} from './deal.rules';

const TODAY = '2026-11-23';
const P1 = 'a'.repeat(24);
const P2 = 'b'.repeat(24);
const S1 = 'c'.repeat(24);
const S2 = 'd'.repeat(24);

const pipeline = (id: string, stages: number[], is_default = false): PipelineRef => ({
  id,
  kind: 'pipeline',
  is_default,
  stages: stages.map((stage) => ({ stage, label: `S${stage}` })),
});
const sales = (id: string, is_default = false): PipelineRef => ({ id, kind: 'sales', is_default, stages: [] });

const base: DealState = {
  contact_id: 'contact',
  owner_id: 'owner',
  pipeline_id: P1,
  sales_pipeline_id: S1,
  name: 'Deal',
  text: 'text',
  status: 'pending',
  stage: 30,
  last_stage: null,
  expected_close_date: '2026-12-01',
  close_date: '2026-12-02',
  date: '2026-11-01',
  amount: 100,
  months: 2,
  cost: 40,
  commission_base: '',
  commission_type: '',
  commission: 0,
  commission_percentage: 0,
  reason_lost_id: null,
  deal_fields: {},
  previous_pipeline_stages: {},
};

function invalidField(fn: () => unknown): string[] {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).errorName).toBe(ErrorName.InvalidRequestData);
    return Object.keys((error as ApiError).errors ?? {});
  }
  throw new Error('expected 400');
}

function errorName(fn: () => unknown): ErrorName {
  try {
    fn();
  } catch (error) {
    return (error as ApiError).errorName;
  }
  throw new Error('expected an error');
}

describe('deal rules', () => {
  describe('money and totals', () => {
    it('rounds money to cents', () => {
      expect(money(10.123)).toBe(10.12);
      expect(money(10.125)).toBe(10.13);
    });

    it('totals amount and cost over the months, margin their difference', () => {
      expect(dealTotals(100, 3, 40)).toEqual({ total_amount: 300, total_cost: 120, margin: 180 });
      expect(dealTotals(33.335, 1, 0).total_amount).toBe(33.34);
    });
  });

  describe('stages', () => {
    it('a pipeline starts at its lowest valid stage, 10 without stages', () => {
      expect(firstStageOf(pipeline(P1, [40, 20, 60]))).toBe(20);
      expect(firstStageOf(pipeline(P1, [0, 100, 50]))).toBe(50);
      expect(firstStageOf(pipeline(P1, []))).toBe(10);
      expect(firstStageOf(undefined)).toBe(10);
    });

    it('a pending deal needs an integer stage with 0 < stage < 100; won and lost deals none', () => {
      for (const stage of [0, 100, -1, 2.5, null]) expect(invalidField(() => assertStage({ status: 'pending', stage }))).toEqual(['stage']);
      expect(() => assertStage({ status: 'pending', stage: 1 })).not.toThrow();
      expect(() => assertStage({ status: 'pending', stage: 99 })).not.toThrow();
      expect(() => assertStage({ status: 'won', stage: null })).not.toThrow();
      expect(() => assertStage({ status: 'lost', stage: 500 })).not.toThrow();
    });
  });

  describe('pipelines', () => {
    const rows = [pipeline(P1, [10], true), pipeline(P2, [20]), sales(S1, true), sales(S2)];

    it('takes the pipelines named, else the defaults', () => {
      expect(pickPipelines(rows)).toMatchObject({ pipeline: { id: P1 }, sales: { id: S1 } });
      expect(pickPipelines(rows, P2.toUpperCase(), S2)).toMatchObject({ pipeline: { id: P2 }, sales: { id: S2 } });
    });

    it('404 for a pipeline of the wrong kind, unknown, or not an id', () => {
      expect(errorName(() => pickPipelines(rows, S2))).toBe(ErrorName.ResourceNotFound);
      expect(errorName(() => pickPipelines(rows, undefined, P2))).toBe(ErrorName.ResourceNotFound);
      expect(errorName(() => pickPipelines(rows, 'e'.repeat(24)))).toBe(ErrorName.ResourceNotFound);
      expect(errorName(() => pickPipelines(rows, 'nope'))).toBe(ErrorName.ResourceNotFound);
    });
  });

  describe('create defaults', () => {
    const context = { contactId: 'contact', ownerId: 'owner', pipeline: pipeline(P1, [20, 50]), salesPipelineId: S1, today: TODAY };
    const request = (fields: Partial<CreateDealRequest>) => ({ contact_id: 'contact', name: 'New', ...fields }) as CreateDealRequest;

    it('status pending at the first stage, dates today, amounts 0, months 1', () => {
      expect(newDeal(request({}), context)).toEqual({
        contact_id: 'contact',
        owner_id: 'owner',
        pipeline_id: P1,
        sales_pipeline_id: S1,
        name: 'New',
        text: '',
        status: 'pending',
        stage: 20,
        last_stage: null,
        expected_close_date: TODAY,
        close_date: TODAY,
        date: TODAY,
        amount: 0,
        months: 1,
        cost: 0,
        commission_base: '',
        commission_type: '',
        commission: 0,
        commission_percentage: 0,
        reason_lost_id: null,
        deal_fields: {},
        previous_pipeline_stages: {},
      });
    });

    it('keeps the values sent; an empty reason_lost_id is none', () => {
      const state = newDeal(request({ stage: 70, amount: 5, months: 3, date: '2026-01-01', reason_lost_id: '' }), context);
      expect(state).toMatchObject({ stage: 70, amount: 5, months: 3, date: '2026-01-01', reason_lost_id: null });
    });

    it('ignores a stage sent for a won or lost deal', () => {
      expect(newDeal(request({ status: 'won', stage: 40 }), context)).toMatchObject({ status: 'won', stage: null, last_stage: null });
      expect(newDeal(request({ status: 'lost', stage: 500 }), context).stage).toBeNull();
    });

    it('refuses a bad stage for a pending deal', () => {
      expect(invalidField(() => newDeal(request({ stage: 100 }), context))).toEqual(['stage']);
    });
  });

  describe('status transitions', () => {
    const pending = { status: 'pending' as const, stage: 30, last_stage: null, close_date: '2026-12-02' };
    const won = { status: 'won' as const, stage: null, last_stage: 30, close_date: '2026-10-10' };

    it('closing keeps the stage as last_stage and sets close_date to today unless sent', () => {
      expect(transition(pending, 'won', {}, true, TODAY, 30)).toEqual({ stage: null, last_stage: 30, close_date: TODAY });
      expect(transition(pending, 'lost', { close_date: '2026-05-05', stage: 80 }, true, TODAY, 30)).toEqual({
        stage: null,
        last_stage: 30,
        close_date: '2026-05-05',
      });
    });

    it('reopening goes to the stage sent, else last_stage, else 10', () => {
      expect(transition(won, 'pending', { stage: 60 }, true, TODAY, null)).toMatchObject({ stage: 60, last_stage: null });
      expect(transition(won, 'pending', {}, true, TODAY, null)).toMatchObject({ stage: 30, last_stage: null });
      expect(transition({ ...won, last_stage: null }, 'pending', {}, true, TODAY, null).stage).toBe(10);
    });

    it('won <-> lost keeps last_stage and ignores a stage sent', () => {
      expect(transition(won, 'lost', { stage: 70 }, true, TODAY, null)).toEqual({ stage: null, last_stage: 30, close_date: '2026-10-10' });
    });

    it('a pending deal staying pending: the stage sent, else its own (PATCH) or the default (PUT)', () => {
      expect(transition(pending, 'pending', { stage: 45 }, true, TODAY, 30).stage).toBe(45);
      expect(transition(pending, 'pending', {}, true, TODAY, 10)).toEqual({ stage: 30, last_stage: null, close_date: '2026-12-02' });
      expect(transition(pending, 'pending', {}, false, TODAY, 10)).toEqual({ stage: 10, last_stage: null, close_date: TODAY });
    });

    it('PUT without close_date on a closed deal resets it to today; PATCH keeps it', () => {
      expect(transition(won, 'won', {}, false, TODAY, null).close_date).toBe(TODAY);
      expect(transition(won, 'won', {}, true, TODAY, null).close_date).toBe('2026-10-10');
    });

    it('the event names the new status when it changed, else updated', () => {
      expect(updateReason('pending', 'won')).toBe('changed_to_won');
      expect(updateReason('won', 'lost')).toBe('changed_to_lost');
      expect(updateReason('lost', 'pending')).toBe('changed_to_pending');
      expect(updateReason('pending', 'pending')).toBe('updated');
    });
  });

  describe('pipeline change', () => {
    it('remembers the stage it leaves and restores the one remembered where it returns', () => {
      const moved = changePipeline(base, { ...base, pipeline_id: P2, stage: 20 }, 20);
      expect(moved.previous_pipeline_stages).toEqual({ [P1]: 30 });
      const back = changePipeline(moved, { ...moved, pipeline_id: P1, stage: 10 }, undefined);
      expect(back).toMatchObject({ stage: 30, previous_pipeline_stages: { [P1]: 30, [P2]: 20 } });
    });

    it('a stage sent wins over the remembered one; a closed deal remembers its last stage and restores none', () => {
      const withHistory = { ...base, previous_pipeline_stages: { [P2]: 55 } };
      expect(changePipeline(withHistory, { ...withHistory, pipeline_id: P2, stage: 15 }, 15).stage).toBe(15);
      const closed = { ...withHistory, status: 'won' as const, stage: null, last_stage: 40 };
      const moved = changePipeline(closed, { ...closed, pipeline_id: P2 }, undefined);
      expect(moved).toMatchObject({ stage: null, previous_pipeline_stages: { [P1]: 40, [P2]: 55 } });
    });

    it('the same pipeline changes nothing', () => {
      const next = { ...base, stage: 70 };
      expect(changePipeline(base, next, undefined)).toBe(next);
    });
  });

  describe('PUT and PATCH values', () => {
    const context = { partial: true, today: TODAY, contactId: 'contact', ownerId: 'owner', pipelines: null };

    it('PATCH keeps what is not sent; null sent takes the default', () => {
      const next = updatedDeal(base, { text: null, months: 4 }, context);
      expect(next).toMatchObject({ name: 'Deal', text: '', months: 4, amount: 100, cost: 40, date: '2026-11-01', stage: 30 });
    });

    it('PUT gives what is not sent its create default (pipeline first stage, dates today, months 1)', () => {
      const pipelines = { pipeline: pipeline(P1, [15, 25], true), sales: sales(S1, true) };
      const next = updatedDeal(base, { name: 'Replaced' }, { ...context, partial: false, pipelines });
      expect(next).toMatchObject({
        name: 'Replaced',
        text: '',
        status: 'pending',
        stage: 15,
        date: TODAY,
        expected_close_date: TODAY,
        close_date: TODAY,
        amount: 0,
        months: 1,
        cost: 0,
        reason_lost_id: null,
      });
    });

    it('a status sent moves the deal through the transition; a bad stage is 400', () => {
      expect(updatedDeal(base, { status: 'lost' }, context)).toMatchObject({
        status: 'lost',
        stage: null,
        last_stage: 30,
        close_date: TODAY,
      });
      expect(invalidField(() => updatedDeal(base, { stage: 0 }, context))).toEqual(['stage']);
    });

    it('a new pipeline named on PATCH restores the stage remembered there', () => {
      const current = { ...base, previous_pipeline_stages: { [P2]: 65 } };
      const pipelines = { pipeline: pipeline(P2, [5]), sales: sales(S1, true) };
      expect(updatedDeal(current, { pipeline_id: P2 }, { ...context, pipelines })).toMatchObject({ pipeline_id: P2, stage: 65 });
    });

    it('takes the contact and owner the service resolved', () => {
      expect(updatedDeal(base, {}, { ...context, contactId: 'other', ownerId: 'boss' })).toMatchObject({
        contact_id: 'other',
        owner_id: 'boss',
      });
    });
  });

  describe('items and commission', () => {
    it('items give amount (price x qty) and cost (cost x qty); none gives none', () => {
      expect(
        itemAmounts([
          { name: 'a', price: 10.5, qty: 2, cost: 3 },
          { name: 'b', price: 1 },
        ]),
      ).toEqual({ amount: 22, cost: 6 });
      expect(itemAmounts([])).toBeNull();
    });

    it('a percentage commission is a share of the total amount, or of the margin', () => {
      const deal = { ...base, amount: 100, months: 3, cost: 40, commission_type: 'percentage', commission_percentage: 10 };
      expect(withCommission(deal).commission).toBe(30);
      expect(withCommission({ ...deal, commission_base: 'margin' }).commission).toBe(18);
      expect(withCommission({ ...deal, commission_percentage: 33.33333 })).toMatchObject({
        commission_percentage: 33.3333,
        commission: 100,
      });
    });

    it('other commissions stay as sent, rounded to cents like the amounts', () => {
      expect(withCommission({ ...base, commission_type: 'absolute', commission: 12.345, amount: 1.005, cost: 2.499 })).toMatchObject({
        commission: 12.35,
        amount: 1,
        cost: 2.5,
      });
    });
  });

  describe('deal fields', () => {
    const defs = new Map<string, DealFieldDefinition>([
      [P1, { id: P1, name: 'Size', type: 'number', position: 0, choices: null }],
      [P2, { id: P2, name: 'Kind', type: 'select_box', position: 1, choices: ['A', 'B'] }],
    ]);

    it('checks values against the definitions: unknown field 404, bad value 400 keyed by entry; null unsets', () => {
      expect(dealFieldValues(defs, [{ deal_field: { id: P1.toUpperCase() }, value: 5 }])).toEqual({ [P1]: 5 });
      expect(errorName(() => dealFieldValues(defs, [{ deal_field: { id: S1 }, value: 1 }]))).toBe(ErrorName.ResourceNotFound);
      expect(invalidField(() => dealFieldValues(defs, [{ deal_field: { id: P2 }, value: 'C' }]))).toEqual(['deal_fields.0.value']);
      expect(
        dealFieldValues(defs, [
          { deal_field: { id: P1 }, value: 5 },
          { deal_field: { id: P1 }, value: null },
        ]),
      ).toEqual({});
    });

    it('only admins set or change them; others may send them unchanged', () => {
      expect(() => assertMaySetDealFields('admin', { [P1]: 1 })).not.toThrow();
      expect(() => assertMaySetDealFields('user', {})).not.toThrow();
      expect(errorName(() => assertMaySetDealFields('user', { [P1]: 1 }))).toBe(ErrorName.NoPermission);
      expect(() => assertMayChangeDealFields('user', { [P1]: 1 }, { [P1]: 1 })).not.toThrow();
      expect(() => assertMayChangeDealFields('user', { [P1]: null }, {})).not.toThrow();
      expect(errorName(() => assertMayChangeDealFields('user', {}, { [P1]: 1 }))).toBe(ErrorName.NoPermission);
      expect(() => assertMayChangeDealFields('admin', {}, { [P1]: 1 })).not.toThrow();
    });
  });

  describe('GET /deals', () => {
    it('fields takes contacts(all) only', () => {
      expect(wantsContacts(undefined)).toBe(false);
      expect(wantsContacts(' ')).toBe(false);
      expect(wantsContacts('Contacts(all)')).toBe(true);
      expect(invalidField(() => wantsContacts('contacts(all),deals(all)'))).toEqual(['fields']);
    });

    it('takes one of contact_id, company_id, tag, filter_id', () => {
      expect(() => assertOneScope({ contact_id: 'x', tag: '' })).not.toThrow();
      expect(invalidField(() => assertOneScope({ contact_id: 'x', tag: 'y', filter_id: 'z' }))).toEqual(['contact_id', 'tag', 'filter_id']);
    });
  });
});
