import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { LOGGER } from '@crm/service-kit';
import { STORAGE_DRIVER, type StorageDriver } from '@crm/storage';
import type { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { CrmCoreConfig } from '../config/crm-core.config';
import { AttachmentsRepository } from './attachments.repository';

const BATCH = 100;

/**
 * Removes the bytes of deleted attachments, replaced photos and logos (crm.storage_purges, written
 * in the deleting transaction). Called after each such commit, and every STORAGE_PURGE_INTERVAL_MS
 * for what failed then (storage unreachable) or was deleted by another path (a record, a contact).
 * Replicas share the queue (`FOR UPDATE SKIP LOCKED`).
 */
@Injectable()
export class StoragePurger implements OnModuleInit, OnModuleDestroy {
  private timer?: NodeJS.Timeout;
  private running: Promise<void> | null = null;

  constructor(
    private readonly dataSource: DataSource,
    private readonly repository: AttachmentsRepository,
    @Inject(STORAGE_DRIVER) private readonly storage: StorageDriver,
    private readonly config: CrmCoreConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onModuleInit(): void {
    this.timer = setInterval(() => void this.purgeNow(), this.config.STORAGE_PURGE_INTERVAL_MS);
    this.timer.unref();
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  /** Purges what is due (waits for a purge already running, then runs once more). */
  async purgeNow(): Promise<void> {
    while (this.running) await this.running;
    this.running = this.drain().finally(() => (this.running = null));
    await this.running;
  }

  private async drain(): Promise<void> {
    try {
      for (let rounds = 0; rounds < 50; rounds += 1) {
        const done = await this.dataSource.transaction(async (tx) => {
          const due = await this.repository.duePurges(tx, BATCH);
          const removed: string[] = [];
          for (const row of due) {
            try {
              await this.storage.delete(row.storage_key);
              removed.push(row.id);
            } catch (error) {
              this.logger.warn({ err: error }, 'could not remove a stored file (kept for the next round)');
            }
          }
          await this.repository.purged(tx, removed);
          return due.length < BATCH || removed.length === 0;
        });
        if (done) return;
      }
    } catch (error) {
      this.logger.warn({ err: error }, 'storage purge failed');
    }
  }
}
