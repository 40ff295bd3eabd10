import { Injectable } from '@nestjs/common';
import { DataSource, type Repository } from 'typeorm';
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

  async pageInAccount(accountId: string, page: number, perPage: number): Promise<[UserEntity[], number]> {
    return this.repo.findAndCount({
      where: { accountId },
      order: { lastName: 'ASC', firstName: 'ASC', id: 'ASC' },
      skip: (page - 1) * perPage,
      take: perPage,
    });
  }
}
