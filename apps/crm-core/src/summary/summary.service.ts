import { Injectable } from '@nestjs/common';
import type { Caller, SummaryBlocksDto } from '@crm/contracts';
import type { EntityManager } from 'typeorm';
import { leadSourceRows, toLeadSourceDto } from '../lead-sources/lead-source.rows';
import { statusRows, toStatusDto } from '../statuses/status.rows';
import { systemTags, tagRows, toTagDto } from '../tags/tag.rows';
import { accountCounts, accountUserIds, streamCounts, tagCounts, teamCounts } from './contact-counts';

/** The five top-level summary blocks, counted after the change (decisions.md "Paging and lists"). */
export type SummaryBlocks = SummaryBlocksDto;

/**
 * Builds the summary blocks for the caller's account. Call it with the manager of the
 * transaction that made the change (after the change), so the counts include it.
 *
 * A handful of grouped queries whatever the account's size: one scan of the contacts grouped by
 * status, lead source, owner and letter (system tags and the caller's action stream folded in),
 * one over contact tags, one over next actions, and the small configuration tables.
 */
@Injectable()
export class SummaryService {
  async blocks(m: EntityManager, caller: Caller): Promise<SummaryBlocks> {
    const accountId = caller.account_id;
    const userIds = await accountUserIds(m, accountId);
    const counts = await accountCounts(m, accountId, caller.user_id);
    const byTag = await tagCounts(m, accountId, caller.user_id);
    const stream = await streamCounts(m, accountId);
    const statuses = await statusRows(m, accountId);
    const leadSources = await leadSourceRows(m, accountId);
    const tags = await tagRows(m, accountId);
    return {
      lead_sources: leadSources.map((row) => ({ lead_source: toLeadSourceDto(row, counts.byLeadSource.get(row.id), userIds) })),
      statuses: statuses.map((row) => ({ status: toStatusDto(row, counts.byStatus.get(row.id), userIds) })),
      tags: { tags: tags.map((tag) => toTagDto(tag.name, byTag.get(tag.id))), system_tags: systemTags(counts) },
      contacts_count: {
        all: [counts.all.counts],
        users: teamCounts(userIds, counts.all.team).map(({ user_id, counts: c }) => ({ user_id, ...c })),
      },
      team_stream: { all: stream.all, users: teamCounts(userIds, stream.byUser) },
    };
  }
}
