import { Module } from '@nestjs/common';
import { FIELD_HANDLERS } from './fields.handler';
import { FieldsRepository } from './fields.repository';
import { FieldsService } from './fields.service';

/** Contact custom fields, company fields and deal fields. */
@Module({
  controllers: FIELD_HANDLERS,
  providers: [FieldsService, FieldsRepository],
  exports: [FieldsService],
})
export class FieldsModule {}
