import { Module } from '@nestjs/common';

/** Statuses, lead sources, tags, saved filters, contact relationships, bootstrap (issue 4). */
@Module({})
export class AccountConfigModule {}
