import { Module } from '@nestjs/common';
import { DealsHandler } from './deals.handler';
import { DealsRepository } from './deals.repository';
import { DealsService } from './deals.service';

/** Deals (spec "Deal", decisions.md "Deals and actions"). */
@Module({ controllers: [DealsHandler], providers: [DealsService, DealsRepository], exports: [DealsService] })
export class DealsModule {}
