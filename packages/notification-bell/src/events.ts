/** The window events the bell dispatches, each with the `detail` it carries. */
export const BELL_EVENTS = {
  received: 'notification:received',
  markedRead: 'notification:marked-read',
  allMarkedRead: 'notification:all-marked-read',
  deleted: 'notification:deleted',
} as const;

/** The events the server publishes on the user's private channel when stored notifications change. */
export const LIVE_EVENTS = {
  created: 'notification.created',
  markedRead: 'notification.marked-read',
  allMarkedRead: 'notification.marked-all-read',
  deleted: 'notification.deleted',
  deletedAll: 'notification.deleted-all',
  /** Seen, archived, unarchived, "archive all read" or snoozed (`{ change, notification_ids, unread_count }`). */
  inboxChanged: 'notification.inbox-changed',
} as const;
