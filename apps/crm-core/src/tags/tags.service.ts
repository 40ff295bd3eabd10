import { Injectable } from '@nestjs/common';
import { ApiError, pageInfo, type Caller, type ListTagsReply, type ListTagsRequest, type TagNameRequest } from '@crm/contracts';
import { DataSource } from 'typeorm';
import { assertAdmin } from '../common/assert-admin';
import { SummaryService } from '../summary/summary.service';
import { systemTags, toTagDto } from './tag.view';
import { TagsRepository } from './tags.repository';

/**
 * Tags of an account: made by assigning them to contacts (the contacts module), listed here with
 * counts, deleted here (admin only). System tags are derived groups, listed beside them.
 */
@Injectable()
export class TagsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly tags: TagsRepository,
    private readonly summary: SummaryService,
  ) {}

  async list(caller: Caller, request: ListTagsRequest): Promise<ListTagsReply> {
    const { page, per_page } = request;
    return this.dataSource.transaction('REPEATABLE READ', async (tx) => {
      const { total, rows } = await this.tags.page(tx, caller.account_id, request, page, per_page);
      const byTag = await this.summary.tagCounts(tx, caller);
      const { counts } = await this.summary.counts(tx, caller);
      return {
        tags: rows.map((row) => toTagDto(row.name, byTag.get(row.id))),
        system_tags: systemTags(counts),
        ...pageInfo(total, page, per_page),
      };
    });
  }

  /** Removes the tag (matched in any letter case) from every contact and from companies' synced tags. */
  async delete(caller: Caller, { tag_name }: TagNameRequest): Promise<Record<string, never>> {
    assertAdmin(caller);
    await this.dataSource.transaction(async (tx) => {
      const tag = await this.tags.findByNameForUpdate(tx, caller.account_id, tag_name.trim());
      if (!tag) throw ApiError.notFound('Tag not found');
      await this.tags.delete(tx, caller.account_id, tag);
    });
    return {};
  }
}
