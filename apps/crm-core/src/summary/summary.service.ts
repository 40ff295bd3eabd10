import { Injectable } from '@nestjs/common';
import type { Caller } from '@crm/contracts';
import type { EntityManager } from 'typeorm';

/** The five top-level summary blocks, counted after the change (decisions.md "Paging and lists"). */
export interface SummaryBlocks {
  lead_sources: unknown[];
  statuses: unknown[];
  tags: { tags: unknown[]; system_tags: unknown[] };
  contacts_count: { all: unknown[]; users: unknown[] };
  team_stream: { all: unknown; users: unknown[] };
}

/**
 * Builds the summary blocks for the caller's account. Call it with the manager of the
 * transaction that made the change (after the change), so the counts include it.
 */
@Injectable()
export class SummaryService {
  async blocks(_m: EntityManager, _caller: Caller): Promise<SummaryBlocks> {
    throw new Error('SummaryService.blocks: not implemented yet (issue 4)');
  }
}
