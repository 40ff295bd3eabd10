import { Module } from '@nestjs/common';
import { CallsHandler } from './calls.handler';
import { CallsRepository } from './calls.repository';
import { CallsService } from './calls.service';

/** Calls logged with contacts (spec "Call"). */
@Module({ controllers: [CallsHandler], providers: [CallsService, CallsRepository], exports: [CallsService] })
export class CallsModule {}
