import { Module } from '@nestjs/common';
import { DeliveriesHandler } from './deliveries.handler';
import { DeliveriesRepository } from './deliveries.repository';
import { DeliveriesService } from './deliveries.service';
import { DeliveryPipelineRunner } from './delivery-pipeline.runner';

/** The delivery pipeline (JetStream -> signed, retried POSTs) and the delivery log over NATS. */
@Module({
  controllers: [DeliveriesHandler],
  providers: [DeliveriesRepository, DeliveriesService, DeliveryPipelineRunner],
})
export class DeliveriesModule {}
