import { Injectable } from '@nestjs/common';
import type { FieldSet, FieldSortKey, FieldSortOrder, FieldType } from '@crm/contracts';
import { DataSource, type Repository } from 'typeorm';
import { timeConditionsNamed, type TimeFilterInput } from '../records/time-filters';
import { FieldEntity } from './entities/field.entity';

/** The unique index that makes names case-insensitively unique per account and set. */
export const FIELD_NAME_UNIQUE_INDEX = 'fields_name_uq';

export interface FieldListQuery {
  type?: FieldType;
  sortBy: FieldSortKey;
  order: FieldSortOrder;
  page: number;
  perPage: number;
  /** The common time filters (date_filter, since, until, modified_since, unmodified_since). */
  time?: TimeFilterInput;
}

export { isUniqueViolation } from '../common/unique-violation';

/** Every query is scoped by account and set: another account's field is simply not found. */
@Injectable()
export class FieldsRepository {
  private readonly repo: Repository<FieldEntity>;

  constructor(dataSource: DataSource) {
    this.repo = dataSource.getRepository(FieldEntity);
  }

  findInSet(accountId: string, fieldSet: FieldSet, id: string): Promise<FieldEntity | null> {
    return this.repo.findOneBy({ accountId, fieldSet, id });
  }

  /** One page in the requested order; ties fall back to created_at and id in the same direction. */
  page(accountId: string, fieldSet: FieldSet, query: FieldListQuery): Promise<[FieldEntity[], number]> {
    const direction = query.order === 'desc' ? 'DESC' : 'ASC';
    const order: Record<string, 'ASC' | 'DESC'> =
      query.sortBy === 'position'
        ? { 'f.position': direction, 'f.createdAt': direction, 'f.id': direction }
        : query.sortBy === 'created_at'
          ? { 'f.createdAt': direction, 'f.id': direction }
          : { 'f.modifiedAt': direction, 'f.id': direction };
    const builder = this.repo
      .createQueryBuilder('f')
      .where('f.account_id = :accountId AND f.field_set = :fieldSet', { accountId, fieldSet });
    if (query.type) builder.andWhere('f.type = :type', { type: query.type });
    const { conditions, parameters } = timeConditionsNamed(query.time ?? {}, 'f');
    for (const condition of conditions) builder.andWhere(condition);
    return builder
      .setParameters(parameters)
      .orderBy(order)
      .skip((query.page - 1) * query.perPage)
      .take(query.perPage)
      .getManyAndCount();
  }

  /** One more than the highest position of the set; 1 for an empty set. */
  async nextPosition(accountId: string, fieldSet: FieldSet): Promise<number> {
    const row = await this.repo
      .createQueryBuilder('f')
      .select('COALESCE(MAX(f.position), 0) + 1', 'next')
      .where('f.account_id = :accountId AND f.field_set = :fieldSet', { accountId, fieldSet })
      .getRawOne<{ next: number | string }>();
    return Number(row?.next ?? 1);
  }

  /** Throws the driver's unique violation on a duplicate name (see {@link isUniqueViolation}). */
  async insert(field: FieldEntity): Promise<void> {
    await this.repo.insert(field);
  }

  /** Writes the changeable columns; false when the field no longer exists. */
  async update(field: FieldEntity): Promise<boolean> {
    const result = await this.repo.update(
      { accountId: field.accountId, fieldSet: field.fieldSet, id: field.id },
      { name: field.name, position: field.position, choices: field.choices, modifiedAt: field.modifiedAt },
    );
    return (result.affected ?? 0) > 0;
  }

  async delete(accountId: string, fieldSet: FieldSet, id: string): Promise<boolean> {
    const result = await this.repo.delete({ accountId, fieldSet, id });
    return (result.affected ?? 0) > 0;
  }
}
