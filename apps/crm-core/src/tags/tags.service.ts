import { Injectable } from '@nestjs/common';
import { ApiError, ListTagsRequest, TagNameRequest, pageInfo, parseContract, type Caller, type ListTagsReply } from '@crm/contracts';
import { DataSource } from 'typeorm';
import { assertAdmin } from '../common/assert-admin';
import { accountCounts, tagCounts } from '../summary/contact-counts';
import { systemTags, tagCount, tagRows, toTagDto } from './tag.rows';

/**
 * Tags of an account: made by assigning them to contacts (the contacts module), listed here with
 * counts, deleted here (admin only). System tags are derived groups, listed beside them.
 */
@Injectable()
export class TagsService {
  constructor(private readonly dataSource: DataSource) {}

  async list(caller: Caller, payload: unknown): Promise<ListTagsReply> {
    const request = parseContract(ListTagsRequest, payload);
    const { page, per_page } = request;
    return this.dataSource.transaction('REPEATABLE READ', async (m) => {
      const total = await tagCount(m, caller.account_id, request);
      const rows = await tagRows(m, caller.account_id, per_page, (page - 1) * per_page, request);
      const byTag = await tagCounts(m, caller.account_id, caller.user_id);
      const counts = await accountCounts(m, caller.account_id, caller.user_id);
      return {
        tags: rows.map((row) => toTagDto(row.name, byTag.get(row.id))),
        system_tags: systemTags(counts),
        ...pageInfo(total, page, per_page),
      };
    });
  }

  /** Removes the tag (matched in any letter case) from every contact and from companies' synced tags. */
  async delete(caller: Caller, payload: unknown): Promise<Record<string, never>> {
    assertAdmin(caller);
    const { tag_name } = parseContract(TagNameRequest, payload);
    await this.dataSource.transaction(async (m) => {
      const [tag]: Array<{ id: string; name: string }> = await m.query(
        'SELECT id, name FROM crm.tags WHERE account_id = $1 AND lower(name) = lower($2) FOR UPDATE',
        [caller.account_id, tag_name.trim()],
      );
      if (!tag) throw ApiError.notFound('Tag not found');
      await m.query(
        'UPDATE crm.contacts SET modified_at = now() WHERE id IN (SELECT contact_id FROM crm.contact_tags WHERE tag_id = $1) AND account_id = $2',
        [tag.id, caller.account_id],
      );
      await m.query(
        'UPDATE crm.companies SET synced_tags = ARRAY(SELECT t FROM unnest(synced_tags) t WHERE lower(t) <> lower($2)), modified_at = now() WHERE account_id = $1 AND EXISTS (SELECT 1 FROM unnest(synced_tags) t WHERE lower(t) = lower($2))',
        [caller.account_id, tag.name],
      );
      await m.query('DELETE FROM crm.tags WHERE id = $1', [tag.id]);
    });
    return {};
  }
}
