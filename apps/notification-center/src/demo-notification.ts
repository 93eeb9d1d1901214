import type { Notification } from '@herald/notifications';
import { TeamChatMessage } from '@herald/teamchat-channel';

/** The notification the demo form sends. */
export class DemoNotification implements Notification {
  readonly type = 'DemoNotification';
  constructor(
    private readonly channels: readonly string[],
    private readonly title: string,
    private readonly message: string,
  ) {}
  via() {
    return this.channels;
  }
  toDatabase() {
    return { title: this.title, message: this.message, icon: 'bell' as const };
  }
  toTeamChat() {
    return TeamChatMessage.create()
      .text(`*${this.title}*`)
      .attachment((attachment) => attachment.text(this.message).color('good'));
  }
}
