import { Module } from '@nestjs/common';

/** Deals, notes, calls, meetings and actions (issue 5). */
@Module({})
export class RecordsModule {}
