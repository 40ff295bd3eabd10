import { Module } from '@nestjs/common';

/** Contact custom fields, company fields and deal fields (issue 4). */
@Module({})
export class FieldsModule {}
