import type { PageInfo } from '../paging/paging.request';

/** What a notification is about: a note, call or meeting that named the user in `user_ids_to_notify`. */
export const NOTIFICATION_TYPES = ['note', 'call', 'meeting'] as const;
export type NotificationType = (typeof NOTIFICATION_TYPES)[number];

/** Most notifications a user keeps: the oldest go when newer ones arrive (OnePageCRM keeps 100). */
export const MAX_NOTIFICATIONS_PER_USER = 100;

/** OnePageCRM's Notification: one of the caller's own, never another user's. */
export interface NotificationDto {
  id: string;
  type: NotificationType;
  /** Name of the user who caused it ("Ada A."). */
  by: string;
  read: boolean;
  /** The notified user (the caller). */
  user_id: string;
  contact_id: string;
  /** The note, call or meeting it is about. */
  record_id: string;
  created_at: string;
  /** When it was marked read, else when it was created. */
  modified_at: string;
  /** Title and body as a push notification shows them. */
  mobile_data: { title: string; body: string; action_type: NotificationType };
}

export interface NotificationReply {
  notification: NotificationDto;
}

export interface ListNotificationsReply extends PageInfo {
  notifications: NotificationReply[];
}

/** POST or PUT /notifications/mark_all_as_read. */
export interface MarkAllNotificationsReadReply {
  /** How many unread notifications it marked. */
  marked_count: number;
}
