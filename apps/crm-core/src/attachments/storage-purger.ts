import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { LOGGER } from '@crm/service-kit';
import { STORAGE_DRIVER, type StorageDriver } from '@crm/storage';
import type { Logger } from 'pino';
import { DataSource, type EntityManager } from 'typeorm';
import { CrmCoreConfig } from '../config/crm-core.config';
import { AttachmentsRepository } from './attachments.repository';

const BATCH = 100;
/**
 * How long after its expiry a form's key is purged: an upload that began before the expiry (the
 * gateway or the bucket checked it then) has ended by then.
 */
export const UPLOAD_FORM_GRACE_SECONDS = 600;

/**
 * Removes the bytes of deleted attachments, replaced photos and logos (crm.storage_purges, written
 * in the deleting transaction), and what is stored under upload forms that expired (registered or
 * not: S3 takes a form again until it expires), with their rows (decisions.md "Upload forms").
 * Called after each such commit, and every STORAGE_PURGE_INTERVAL_MS for what failed then (storage
 * unreachable), was deleted by another path (a record, a contact) or expired since. Replicas share
 * the queues (`FOR UPDATE SKIP LOCKED`).
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
      await this.rounds(async (tx) => {
        const due = await this.repository.duePurges(tx, BATCH);
        const removed = await this.remove(due.map((row) => [row.id, row.storage_key] as const));
        await this.repository.purged(tx, removed);
        return due.length < BATCH || removed.length === 0;
      });
      await this.rounds(async (tx) => {
        const due = await this.repository.expiredUploadForms(tx, UPLOAD_FORM_GRACE_SECONDS, BATCH);
        const removed = await this.remove(due.map((row) => [row.storage_key, row.storage_key] as const));
        await this.repository.removeUploadForms(tx, removed);
        return due.length < BATCH || removed.length === 0;
      });
    } catch (error) {
      this.logger.warn({ err: error }, 'storage purge failed');
    }
  }

  /** Runs `round` in its own transaction until it says it is done (at most 50 rounds per purge). */
  private async rounds(round: (tx: EntityManager) => Promise<boolean>): Promise<void> {
    for (let rounds = 0; rounds < 50; rounds += 1) if (await this.dataSource.transaction(round)) return;
  }

  /** Deletes each key; answers the ids of those removed (a failure is kept for the next round). */
  private async remove(entries: ReadonlyArray<readonly [string, string]>): Promise<string[]> {
    const removed: string[] = [];
    for (const [id, key] of entries) {
      try {
        await this.storage.delete(key);
        removed.push(id);
      } catch (error) {
        this.logger.warn({ err: error }, 'could not remove a stored file (kept for the next round)');
      }
    }
    return removed;
  }
}
