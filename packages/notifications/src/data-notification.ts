import type { Notification } from './notification.js';
import type { NotificationData } from './notification-data.js';

/** A notification made of its type and stored data, as the send API and away delivery hand it to channels. */
export type DataNotification = Notification & { toTeamChat(): { text: string } };

/** The team-chat text of a notification: the title in bold, the message, the link. */
function teamChatText(data: NotificationData): string {
  return [`*${data.title}*`, data.message, data.action_url].filter(Boolean).join('\n');
}

/** Makes a notification of `type` whose every builder answers from `data` (the team chat gets a short text). */
export function dataNotification(
  type: string,
  data: NotificationData,
  extra: Partial<
    Pick<
      Notification,
      'via' | 'awayAfterSeconds' | 'digestWindowSeconds' | 'awayVia' | 'collapseKey' | 'expiresAt'
    >
  > = {},
): DataNotification {
  return {
    type,
    via: () => [],
    ...extra,
    toDatabase: () => data,
    toTeamChat: () => ({ text: teamChatText(data) }),
  };
}
