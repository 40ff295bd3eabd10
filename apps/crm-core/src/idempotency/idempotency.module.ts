import { Module } from '@nestjs/common';
import { IdempotencyRepository } from './idempotency.repository';
import { IdempotencyRetention } from './idempotency-retention';
import { IdempotencyService } from './idempotency.service';

/** crm-core's write boundary and the Idempotency-Keys recorded with the writes (docs/decisions.md "Idempotency recorded with the write"). */
@Module({
  providers: [IdempotencyService, IdempotencyRepository, IdempotencyRetention],
  exports: [IdempotencyService],
})
export class IdempotencyModule {}
