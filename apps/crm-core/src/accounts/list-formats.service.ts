import { Injectable } from '@nestjs/common';
import {
  DEFAULT_ACCOUNT_SETTINGS,
  onePageCrmWindow,
  type Caller,
  type ListFormat,
  type ListFormatChoice,
  type OnePageCrmList,
  type PagingRequest,
} from '@crm/contracts';
import { DataSource } from 'typeorm';
import { AccountsRepository } from './accounts.repository';

/**
 * The two formats of GET /users, /statuses, /lead_sources and /call_results (docs/decisions.md
 * "Lists: paged by default, OnePageCRM's bare arrays on request"): the request's X-List-Format
 * header wins, else the account's `list_format` setting (paged unless the operator chose
 * otherwise). The services keep answering pages; this only picks the page and the shape.
 */
@Injectable()
export class ListFormatsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly accounts: AccountsRepository,
  ) {}

  /** The format a list request answers in: its header's, else its account's setting (read only then). */
  async formatOf(caller: Caller, choice: ListFormatChoice | undefined): Promise<ListFormat> {
    if (choice?.format !== undefined) return choice.format;
    return (await this.accounts.listFormat(this.dataSource.manager, caller.account_id)) ?? DEFAULT_ACCOUNT_SETTINGS.list_format;
  }

  /**
   * The list's answer: its page as `read` answers it, or, in OnePageCRM's format (`list`), the bare
   * array of the entries of the request's page when its query pages, else of the first `cap`.
   */
  async answer<R extends PagingRequest, P, E>(
    caller: Caller,
    choice: ListFormatChoice | undefined,
    request: R,
    read: (request: R) => Promise<P> | P,
    list: OnePageCrmList<P, E>,
  ): Promise<P | E[]> {
    if ((await this.formatOf(caller, choice)) === 'paged') return read(request);
    return list.entries(await read(onePageCrmWindow(request, choice?.paged === true, list.cap)));
  }
}
