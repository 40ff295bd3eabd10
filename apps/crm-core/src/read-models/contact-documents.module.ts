import { Inject, Injectable, Module, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { LOGGER } from '@crm/service-kit';
import type { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { ContactDocumentProjector } from './contact-documents.projector';

/** Runs the contact document projector in every crm-core replica; stops it on shutdown. */
@Injectable()
export class ContactDocumentsRunner implements OnApplicationBootstrap, OnApplicationShutdown {
  private projector: ContactDocumentProjector | undefined;

  constructor(
    private readonly dataSource: DataSource,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onApplicationBootstrap(): void {
    this.projector = new ContactDocumentProjector({ dataSource: this.dataSource, logger: this.logger });
    this.projector.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.projector?.stop();
  }
}

@Module({ providers: [ContactDocumentsRunner] })
export class ContactDocumentsModule {}
