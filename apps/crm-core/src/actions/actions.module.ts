import { Module } from '@nestjs/common';
import { ActionsHandler } from './actions.handler';
import { ActionsRepository } from './actions.repository';
import { ActionsService } from './actions.service';

/** Next and queued actions (decisions.md "Deals and actions"). */
@Module({ controllers: [ActionsHandler], providers: [ActionsService, ActionsRepository], exports: [ActionsService] })
export class ActionsModule {}
