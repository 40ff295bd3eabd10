import { Injectable } from '@nestjs/common';
import type { Caller, SummaryBlocksDto } from '@crm/contracts';
import type { Db } from '../common/sql';
import { toLeadSourceDto } from '../lead-sources/lead-source.view';
import { toStatusDto } from '../statuses/status.view';
import { systemTags, toTagDto } from '../tags/tag.view';
import { accountCountsOf, streamCountsOf, tagCountsOf, teamCounts, teamLetterCounts, type AccountCounts, type GroupCounts } from './counts';
import { SummaryRepository } from './summary.repository';

/** The five top-level summary blocks, counted after the change (decisions.md "Paging and lists"). */
export type SummaryBlocks = SummaryBlocksDto;

/** The account's contact counts as the caller sees them, with the user ids its team counts list. */
export interface CallerCounts {
  userIds: string[];
  counts: AccountCounts;
}

/**
 * Counts of the account's contacts and the summary blocks. Call with the executor of the
 * transaction that made the change (after the change), so the counts include it.
 *
 * A handful of small queries over stored counters (docs/decisions.md "Summary counts from stored
 * group counters", "Action-stream and tag counts from stored counters"): the contacts' counts by
 * status, lead source, owner and letter (system tags and the caller's action stream folded in); the
 * tags' counts; the action streams'; and the small configuration tables.
 */
@Injectable()
export class SummaryService {
  constructor(private readonly repository: SummaryRepository) {}

  /** Counts per status, lead source and overall (with system tags), and the account's users. */
  async counts(db: Db, caller: Caller): Promise<CallerCounts> {
    const userIds = await this.repository.userIds(db, caller.account_id);
    const counts = accountCountsOf(await this.repository.contactGroups(db, caller.account_id, caller.user_id));
    return { userIds, counts };
  }

  /** The account's user ids in the order of GET /users: the users every `team_counts` lists. */
  userIds(db: Db, accountId: string): Promise<string[]> {
    return this.repository.userIds(db, accountId);
  }

  /** Counts per tag id, with the caller's action stream. */
  async tagCounts(db: Db, caller: Caller): Promise<Map<string, GroupCounts>> {
    return tagCountsOf(await this.repository.tagGroups(db, caller.account_id, caller.user_id));
  }

  async blocks(db: Db, caller: Caller): Promise<SummaryBlocks> {
    const accountId = caller.account_id;
    const { userIds, counts } = await this.counts(db, caller);
    const byTag = await this.tagCounts(db, caller);
    const stream = streamCountsOf(await this.repository.streamGroups(db, accountId));
    const statuses = await this.repository.statuses(db, accountId);
    const leadSources = await this.repository.leadSources(db, accountId);
    const tags = await this.repository.tags(db, accountId);
    return {
      // Flat, as the spec ("array of lead source") and OnePageCRM have them.
      lead_sources: leadSources.map((row) => toLeadSourceDto(row, counts.byLeadSource.get(row.id), userIds, caller.user_id)),
      statuses: statuses.map((row) => ({ status: toStatusDto(row, counts.byStatus.get(row.id), userIds, caller.user_id) })),
      tags: { tags: tags.map((tag) => toTagDto(tag.name, byTag.get(tag.id))), system_tags: systemTags(counts) },
      contacts_count: {
        all: [counts.all.counts],
        users: teamLetterCounts(userIds, counts.all.team).map(({ user_id, counts: c }) => ({ user_id, ...c })),
      },
      team_stream: { all: stream.all.total_count, users: teamCounts(userIds, stream.byUser) },
    };
  }
}
