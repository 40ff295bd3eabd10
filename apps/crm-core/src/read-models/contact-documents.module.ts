import { Inject, Injectable, Module, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { LOGGER, METRICS_REGISTRY } from '@crm/service-kit';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { DataSource } from 'typeorm';
import { ContactDocumentMetrics } from './contact-documents.metrics';
import { ContactDocumentProjector } from './contact-documents.projector';
import { contactDocumentBacklog } from './contact-documents.repository';

/** Runs the contact document projector in every crm-core replica, with its metrics; stops it on shutdown. */
@Injectable()
export class ContactDocumentsRunner implements OnApplicationBootstrap, OnApplicationShutdown {
  private projector: ContactDocumentProjector | undefined;

  constructor(
    private readonly dataSource: DataSource,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(METRICS_REGISTRY) private readonly registry: Registry,
  ) {}

  onApplicationBootstrap(): void {
    const metrics = new ContactDocumentMetrics(this.registry, () => contactDocumentBacklog(this.dataSource.manager));
    this.projector = new ContactDocumentProjector({ dataSource: this.dataSource, logger: this.logger, metrics });
    this.projector.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.projector?.stop();
  }
}

@Module({ providers: [ContactDocumentsRunner] })
export class ContactDocumentsModule {}
