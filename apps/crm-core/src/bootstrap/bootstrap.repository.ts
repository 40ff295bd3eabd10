import { Injectable } from '@nestjs/common';
import { one, sql, type Db } from '../common/sql';

/** The account settings GET /bootstrap shows. */
export interface AccountSettingsRow {
  id: string;
  name: string;
  region: string;
  lead_status_id: string;
}

@Injectable()
export class BootstrapRepository {
  /** The account's name and region with its lead status. */
  settings(db: Db, accountId: string): Promise<AccountSettingsRow> {
    return one(
      db,
      sql`SELECT a.id, a.name, a.region, s.id AS lead_status_id
          FROM crm.accounts a JOIN crm.statuses s ON s.account_id = a.id AND s.is_lead
          WHERE a.id = ${accountId}`,
      { prepare: true },
    );
  }
}
