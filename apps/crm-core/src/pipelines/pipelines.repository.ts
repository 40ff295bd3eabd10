import { Injectable } from '@nestjs/common';
import { accountPage, many, maybeOne, sql, type AccountList, type Db, type TimeFilterInput } from '../common/sql';

/** crm.pipelines as the service reads it. */
export interface PipelineRow {
  id: string;
  name: string;
  kind: 'pipeline' | 'sales';
  is_default: boolean;
  won_column_enabled: boolean;
  won_column_name: string;
  stages: Array<{ stage: number; label: string }>;
  created_at: Date;
  modified_at: Date;
}

const COLUMNS = sql.raw(
  'p.id, p.name, p.kind, p.is_default, p.won_column_enabled, p.won_column_name, p.stages, p.created_at, p.modified_at',
);
/** Deal pipelines first, then sales pipelines; the default of each first. */
const ORDER = sql.raw("(p.kind = 'sales'), p.is_default DESC, p.created_at, p.id");

/** Pipelines are read-only through the API: every account has its defaults (seeded at provisioning). */
const LIST: AccountList = {
  from: sql.raw('crm.pipelines p'),
  alias: 'p',
  columns: COLUMNS,
  orderBy: ORDER,
};

/** The account's calls with one result by one author. */
export interface CallResultCountRow {
  author_id: string;
  call_result: string;
  n: number;
}

@Injectable()
export class PipelinesRepository {
  /**
   * The account's calls counted per author and result, for GET /call_results: an index-only scan
   * of calls_result_counts_idx (calls of a contact in the trash count until it is purged).
   */
  callResultCounts(db: Db, accountId: string): Promise<CallResultCountRow[]> {
    return many<CallResultCountRow>(
      db,
      sql`SELECT l.author_id, l.call_result, count(*)::int AS n FROM crm.calls l
          WHERE l.account_id = ${accountId} GROUP BY l.author_id, l.call_result`,
      { prepare: true },
    );
  }

  page(db: Db, accountId: string, time: TimeFilterInput, page: number, perPage: number) {
    return accountPage<PipelineRow>(db, LIST, accountId, time, page, perPage);
  }

  all(db: Db, accountId: string): Promise<PipelineRow[]> {
    return many(db, sql`SELECT ${COLUMNS} FROM crm.pipelines p WHERE p.account_id = ${accountId} ORDER BY ${ORDER}`, { prepare: true });
  }

  find(db: Db, accountId: string, id: string): Promise<PipelineRow | undefined> {
    return maybeOne(db, sql`SELECT ${COLUMNS} FROM crm.pipelines p WHERE p.id = ${id} AND p.account_id = ${accountId}`, { prepare: true });
  }
}
