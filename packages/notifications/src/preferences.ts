import type { NotifiableKey } from './record.js';

/** The entry of preferences that applies to every notification type without an entry of its own. */
export const ANY_NOTIFICATION_TYPE = '*';

/**
 * Which channels a user accepts, per notification type: `{ CommentReplied: { teamchat: false } }`. A channel
 * set to false is refused; a channel not named is accepted. The `*` entry applies to every type without an
 * entry for that channel.
 */
export type NotificationPreferences = Readonly<Record<string, Readonly<Record<string, boolean>>>>;

/** Where the sender learns which channels notifiables refuse (the store is one). */
export interface ChannelPreferences {
  /**
   * The channels each notifiable refuses for a notification type, keyed by {@link preferenceOwnerKey};
   * notifiables that refuse nothing may be left out.
   */
  refusedChannels(
    owners: readonly NotifiableKey[],
    notificationType: string,
  ): Promise<ReadonlyMap<string, ReadonlySet<string>>>;
}

/** The key a notifiable has in {@link ChannelPreferences.refusedChannels}' answer. */
export function preferenceOwnerKey(owner: NotifiableKey): string {
  return JSON.stringify([owner.type, owner.id]);
}

/** The channels one user's preferences refuse for a notification type: its own entry, else `*`. */
export function refusedChannelsOf(
  preferences: NotificationPreferences,
  notificationType: string,
): Set<string> {
  const own = preferences[notificationType] ?? {};
  const any = preferences[ANY_NOTIFICATION_TYPE] ?? {};
  const refused = new Set<string>();
  for (const channel of new Set([...Object.keys(own), ...Object.keys(any)])) {
    if ((own[channel] ?? any[channel]) === false) refused.add(channel);
  }
  return refused;
}
