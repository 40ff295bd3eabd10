import { Injectable } from '@nestjs/common';
import {
  CALL_RESULTS,
  CONTACT_TITLES,
  DEFAULT_PER_PAGE,
  MAX_PER_PAGE,
  SYSTEM_TAGS,
  type BootstrapReply,
  type Caller,
  type NextActionDate,
  type PageInfo,
  type SummaryBlocksDto,
} from '@crm/contracts';
import { DataSource } from 'typeorm';
import { toFieldDto } from '../fields/field.view';
import { FieldsService } from '../fields/fields.service';
import { FiltersService } from '../filters/filters.service';
import { PipelinesService } from '../pipelines/pipelines.service';
import { PredefinedActionsService } from '../predefined-actions/predefined-actions.service';
import { RelationshipTypesService } from '../relationship-types/relationship-types.service';
import { SummaryService } from '../summary/summary.service';
import { UsersService } from '../users/users.service';
import { settingsOf } from '../accounts/account.rules';
import { BootstrapRepository, type NextActionDateRow } from './bootstrap.repository';

/** Every page of a paged list method, concatenated. */
async function everyPage<R extends PageInfo, T>(fetch: (page: number) => Promise<R>, items: (reply: R) => T[]): Promise<T[]> {
  const out: T[] = [];
  for (let page = 1; ; page += 1) {
    const reply = await fetch(page);
    out.push(...items(reply));
    if (page >= reply.max_page) return out;
  }
}

/** How many quick date options `next_action_dates` has, and how many countries `popular_countries`. */
const QUICK_DATES = 5;
const POPULAR_COUNTRIES = 5;

/** The options every caller has until its own next actions say otherwise. */
const DEFAULT_QUICK_DATES: readonly NextActionDate[] = [
  { number: 1, period: 'days' },
  { number: 3, period: 'days' },
  { number: 1, period: 'weeks' },
  { number: 2, period: 'weeks' },
  { number: 1, period: 'months' },
];

const PERIOD_DAYS = { days: 1, weeks: 7, months: 30 } as const;

/**
 * The caller's most used distances (already by use), completed from the defaults to
 * {@link QUICK_DATES}, nearest first.
 */
export function quickDates(used: readonly NextActionDateRow[]): NextActionDate[] {
  const chosen: NextActionDate[] = used.slice(0, QUICK_DATES).map(({ number, period }) => ({ number, period }));
  for (const option of DEFAULT_QUICK_DATES) {
    if (chosen.length >= QUICK_DATES) break;
    if (!chosen.some((c) => c.number === option.number && c.period === option.period)) chosen.push({ ...option });
  }
  const length = (d: NextActionDate) => d.number * PERIOD_DAYS[d.period];
  return chosen.sort((a, b) => length(a) - length(b) || PERIOD_DAYS[b.period] - PERIOD_DAYS[a.period]);
}

/** Page `page` of a list at the largest page size, without time filters. */
const pageOf = (page: number) => ({ page, per_page: MAX_PER_PAGE });

/**
 * GET /bootstrap: what a client reads on connect, in one response. The reads run in one
 * repeatable-read transaction where they can, so counts and configuration agree.
 */
@Injectable()
export class BootstrapService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly bootstrap: BootstrapRepository,
    private readonly users: UsersService,
    private readonly fields: FieldsService,
    private readonly filters: FiltersService,
    private readonly pipelines: PipelinesService,
    private readonly predefinedActions: PredefinedActionsService,
    private readonly relationshipTypes: RelationshipTypesService,
    private readonly summary: SummaryService,
  ) {}

  /** The bootstrap `data` and the summary blocks that go beside it. */
  async get(caller: Caller): Promise<{ data: BootstrapReply; summary: SummaryBlocksDto }> {
    const [me, team, customFields, companyFields, dealFields, predefinedActions, groups, relationshipTypes] = await Promise.all([
      this.users.get(caller, { user_id: caller.user_id }),
      everyPage(
        (page) => this.users.list(caller, pageOf(page)),
        (r) => r.users.map((entry) => entry.user),
      ),
      this.fields.all('custom_fields', caller.account_id),
      this.fields.all('company_fields', caller.account_id),
      this.fields.all('deal_fields', caller.account_id),
      everyPage(
        (page) => this.predefinedActions.list(caller, pageOf(page)),
        (r) => r.predefined_actions,
      ),
      everyPage(
        (page) => this.predefinedActions.listGroups(caller, pageOf(page)),
        (r) => r.predefined_action_groups,
      ),
      everyPage(
        (page) => this.relationshipTypes.list(caller, pageOf(page)),
        (r) => r.relationship_types,
      ),
    ]);
    const rest = await this.dataSource.transaction('REPEATABLE READ', async (tx) => {
      const account = await this.bootstrap.settings(tx, caller.account_id);
      const pipelines = await this.pipelines.all(tx, caller.account_id);
      const filters = await this.filters.all(tx, caller.account_id);
      const blocks = await this.summary.blocks(tx, caller);
      const stored = settingsOf(account);
      const used = await this.bootstrap.nextActionDates(tx, caller.account_id, caller.user_id, stored.settings.time_zone, QUICK_DATES);
      const countries = await this.bootstrap.popularCountries(tx, caller.account_id, POPULAR_COUNTRIES);
      return { account, stored, used, countries, pipelines, filters, blocks };
    });
    const defaultPipeline = (type: 'pipeline' | 'sales_pipeline') => rest.pipelines.find((p) => p.type === type && p.default);
    const defaultOf = (type: 'pipeline' | 'sales_pipeline') => defaultPipeline(type)?.id ?? null;
    const pipelines = rest.pipelines.map((pipeline) => ({ pipeline }));
    const data: BootstrapReply = {
      user_id: caller.user_id,
      auth_key: null,
      user: me.user,
      team,
      account_type: rest.stored.account_type,
      settings: {
        ...rest.stored.settings,
        popular_countries: rest.countries,
        deal_stages: defaultPipeline('pipeline')?.stages ?? [],
        pipelines,
        account_id: rest.account.id,
        account_name: rest.account.name,
        region: rest.account.region,
        lead_status_id: rest.account.lead_status_id,
        default_pipeline_id: defaultOf('pipeline'),
        default_sales_pipeline_id: defaultOf('sales_pipeline'),
        role: caller.role,
        auth_method: caller.auth_method,
        scopes: [...caller.scopes],
        per_page: { default: DEFAULT_PER_PAGE, max: MAX_PER_PAGE },
        system_tags: [...SYSTEM_TAGS],
      },
      cost_setup: rest.stored.cost_setup,
      next_action_dates: quickDates(rest.used),
      custom_fields: customFields.map(toFieldDto),
      company_fields: companyFields.map(toFieldDto),
      deal_fields: dealFields.map(toFieldDto),
      filters: rest.filters,
      call_results: Object.fromEntries(CALL_RESULTS.map((r) => [r.id, r.text])),
      call_results_order: CALL_RESULTS.map((r) => r.id),
      predefined_actions: predefinedActions.map((entry) => entry.predefined_action),
      predefined_action_groups: groups,
      relationship_types: relationshipTypes,
      contact_titles: [...CONTACT_TITLES],
      pipelines,
    };
    return { data, summary: rest.blocks };
  }
}
