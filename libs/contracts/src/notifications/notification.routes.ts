import { EmptyRequest } from '../routes/empty.request';
import type { RouteDeclaration } from '../routes/route-declaration';
import { ListNotificationsRequest, NotificationIdRequest } from './notification.requests';
import { NotificationSubjects } from './notification.subjects';

/**
 * The caller's notifications (issue 13). Marking answers both verbs: PUT (200) as decisions.md
 * lists it, POST (201) as OnePageCRM's clients send it. The static path comes first.
 */
export const NOTIFICATION_ROUTES: readonly RouteDeclaration[] = [
  {
    operationId: 'listNotifications',
    method: 'GET',
    path: '/notifications',
    subject: NotificationSubjects.NotificationsList,
    access: 'read',
    request: ListNotificationsRequest,
    reply: 'ListNotificationsReply',
    successStatus: 200,
    summary: "List the caller's notifications, newest first (the 100 newest are kept)",
    tag: 'Notifications',
  },
  {
    operationId: 'markAllNotificationsAsRead',
    method: 'PUT',
    path: '/notifications/mark_all_as_read',
    subject: NotificationSubjects.NotificationsMarkAllRead,
    access: 'write',
    request: EmptyRequest,
    reply: 'MarkAllNotificationsReadReply',
    successStatus: 200,
    summary: "Mark all the caller's notifications read",
    tag: 'Notifications',
  },
  {
    operationId: 'markAllNotificationsAsReadPost',
    method: 'POST',
    path: '/notifications/mark_all_as_read',
    subject: NotificationSubjects.NotificationsMarkAllRead,
    access: 'write',
    request: EmptyRequest,
    reply: 'MarkAllNotificationsReadReply',
    successStatus: 201,
    summary: "Mark all the caller's notifications read (OnePageCRM's verb)",
    tag: 'Notifications',
  },
  {
    operationId: 'getNotification',
    method: 'GET',
    path: '/notifications/{notification_id}',
    subject: NotificationSubjects.NotificationsGet,
    access: 'read',
    request: NotificationIdRequest,
    reply: 'NotificationReply',
    successStatus: 200,
    summary: "Get one of the caller's notifications",
    tag: 'Notifications',
  },
  {
    operationId: 'markNotificationAsRead',
    method: 'PUT',
    path: '/notifications/{notification_id}/mark_as_read',
    subject: NotificationSubjects.NotificationsMarkRead,
    access: 'write',
    request: NotificationIdRequest,
    reply: 'NotificationReply',
    successStatus: 200,
    summary: "Mark one of the caller's notifications read",
    tag: 'Notifications',
  },
  {
    operationId: 'markNotificationAsReadPost',
    method: 'POST',
    path: '/notifications/{notification_id}/mark_as_read',
    subject: NotificationSubjects.NotificationsMarkRead,
    access: 'write',
    request: NotificationIdRequest,
    reply: 'NotificationReply',
    successStatus: 201,
    summary: "Mark one of the caller's notifications read (OnePageCRM's verb)",
    tag: 'Notifications',
  },
];
