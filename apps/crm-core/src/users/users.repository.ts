import { Injectable } from '@nestjs/common';
import { DataSource, type Repository } from 'typeorm';
import { timeConditionsNamed, type TimeFilterInput } from '../records/time-filters';
import { UserEntity } from './entities/user.entity';

/** Every query is scoped by account: another account's user is simply not found. */
@Injectable()
export class UsersRepository {
  private readonly repo: Repository<UserEntity>;

  constructor(dataSource: DataSource) {
    this.repo = dataSource.getRepository(UserEntity);
  }

  findInAccount(accountId: string, userId: string): Promise<UserEntity | null> {
    return this.repo.findOneBy({ accountId, id: userId });
  }

  /** One page by name; `time`: the common time filters (decisions.md "Paging and lists"). */
  async pageInAccount(accountId: string, page: number, perPage: number, time: TimeFilterInput = {}): Promise<[UserEntity[], number]> {
    const { conditions, parameters } = timeConditionsNamed(time, 'u');
    const builder = this.repo.createQueryBuilder('u').where('u.account_id = :accountId', { accountId });
    for (const condition of conditions) builder.andWhere(condition);
    return builder
      .setParameters(parameters)
      .orderBy({ 'u.lastName': 'ASC', 'u.firstName': 'ASC', 'u.id': 'ASC' })
      .skip((page - 1) * perPage)
      .take(perPage)
      .getManyAndCount();
  }
}
