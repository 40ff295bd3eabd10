import { Injectable } from '@nestjs/common';
import {
  ApiError,
  pageInfo,
  type Caller,
  type ListNotificationsReply,
  type ListNotificationsRequest,
  type MarkAllNotificationsReadReply,
  type NotificationIdRequest,
  type NotificationReply,
  type NotificationType,
} from '@crm/contracts';
import { DataSource } from 'typeorm';
import type { Db } from '../common/sql';
import { normalizeId } from '../records/record-common';
import { findUsers } from '../records/record-references.repository';
import { toNotificationDto } from './notification.view';
import { NotificationsRepository } from './notifications.repository';

/**
 * The caller's own notifications (decisions.md "Notifications"): written by notes, calls and
 * meetings that name users in `user_ids_to_notify`; another user's are 404 like another account's.
 */
@Injectable()
export class NotificationsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly notifications: NotificationsRepository,
  ) {}

  async list(caller: Caller, request: ListNotificationsRequest): Promise<ListNotificationsReply> {
    const { total, rows } = await this.notifications.page(
      this.dataSource.manager,
      caller.account_id,
      caller.user_id,
      request.page,
      request.per_page,
    );
    return {
      notifications: rows.map((row) => ({ notification: toNotificationDto(row) })),
      ...pageInfo(total, request.page, request.per_page),
    };
  }

  async get(caller: Caller, request: NotificationIdRequest): Promise<NotificationReply> {
    return { notification: await this.load(this.dataSource.manager, caller, request.notification_id) };
  }

  async markRead(caller: Caller, request: NotificationIdRequest): Promise<NotificationReply> {
    return this.dataSource.transaction(async (tx) => {
      const id = normalizeId(request.notification_id);
      if (!id || !(await this.notifications.markRead(tx, caller.account_id, caller.user_id, id)))
        throw ApiError.notFound('Notification not found');
      return { notification: await this.load(tx, caller, id) };
    });
  }

  async markAllRead(caller: Caller): Promise<MarkAllNotificationsReadReply> {
    return { marked_count: await this.notifications.markAllRead(this.dataSource.manager, caller.account_id, caller.user_id) };
  }

  /**
   * In the transaction writing a note, call or meeting: notifies the users of `userIds` but the
   * author (a user who is not the account's is 404 for `user_ids_to_notify`, and nothing is written).
   */
  async notifyOf(
    tx: Db,
    caller: Caller,
    kind: NotificationType,
    recordId: string,
    contactId: string,
    userIds: readonly string[] | null | undefined,
  ): Promise<void> {
    if (!userIds?.length) return;
    const users = await findUsers(tx, caller.account_id, userIds, 'user_ids_to_notify');
    const recipients = [...users.keys()].filter((userId) => userId !== caller.user_id);
    await this.notifications.notify(tx, caller.account_id, kind, recordId, contactId, caller.user_id, recipients);
  }

  /** In the transaction deleting a note, call or meeting: its notifications go with it. */
  forgetRecord(tx: Db, caller: Caller, recordId: string): Promise<void> {
    return this.notifications.forgetRecord(tx, caller.account_id, recordId);
  }

  private async load(db: Db, caller: Caller, notificationId: string) {
    const id = normalizeId(notificationId);
    const row = id ? await this.notifications.byId(db, caller.account_id, caller.user_id, id) : undefined;
    if (!row) throw ApiError.notFound('Notification not found');
    return toNotificationDto(row);
  }
}
