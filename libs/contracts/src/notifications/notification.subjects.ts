/** Subjects of the caller's notifications (issue 13): gateway -> crm-core; spread into {@link Subjects}. */
export const NotificationSubjects = {
  NotificationsList: 'crm.notifications.list.v1',
  NotificationsGet: 'crm.notifications.get.v1',
  NotificationsMarkRead: 'crm.notifications.mark-read.v1',
  NotificationsMarkAllRead: 'crm.notifications.mark-all-read.v1',
} as const;
