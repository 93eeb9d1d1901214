import type { StoreConnection } from './internal/store-connection.js';
import {
  ANY_NOTIFICATION_TYPE,
  type ChannelPreferences,
  type NotificationPreferences,
  preferenceOwnerKey,
  refusedChannelsOf,
} from './preferences.js';
import type { NotifiableKey } from './record.js';

/** The queries on users' channel preferences. */
export interface PreferenceQueries {
  /** A notifiable's channel preferences per notification type (empty when never set). */
  getPreferences(owner: NotifiableKey): Promise<NotificationPreferences>;
  /** Replaces a notifiable's channel preferences with these. */
  setPreferences(owner: NotifiableKey, preferences: NotificationPreferences): Promise<void>;
  /** The channels each notifiable refuses for a notification type; the sender asks before any channel runs. */
  refusedChannels: ChannelPreferences['refusedChannels'];
}

function preferencesOf(
  rows: ReadonlyArray<{ notification_type: string; channel: string; enabled: boolean }>,
): NotificationPreferences {
  const preferences: Record<string, Record<string, boolean>> = {};
  for (const row of rows) {
    preferences[row.notification_type] = {
      ...preferences[row.notification_type],
      [row.channel]: row.enabled,
    };
  }
  return preferences;
}

/** The queries on the `notification_preferences` table; `batchSize` owners are read per query. */
export function createPreferenceQueries(connection: StoreConnection, batchSize: number): PreferenceQueries {
  const { db } = connection;
  return {
    async getPreferences(owner) {
      const rows = await db
        .selectFrom('notification_preferences')
        .select(['notification_type', 'channel', 'enabled'])
        .where('notifiable_type', '=', owner.type)
        .where('notifiable_id', '=', owner.id)
        .orderBy('notification_type')
        .orderBy('channel')
        .execute();
      return preferencesOf(rows);
    },
    async setPreferences(owner, preferences) {
      const now = new Date();
      const rows = Object.entries(preferences).flatMap(([notificationType, channels]) =>
        Object.entries(channels).map(([channel, enabled]) => ({
          notifiable_type: owner.type,
          notifiable_id: owner.id,
          notification_type: notificationType,
          channel,
          enabled,
          updated_at: now,
        })),
      );
      await connection.transaction(async (trx) => {
        await trx
          .deleteFrom('notification_preferences')
          .where('notifiable_type', '=', owner.type)
          .where('notifiable_id', '=', owner.id)
          .execute();
        if (rows.length > 0) await trx.insertInto('notification_preferences').values(rows).execute();
      });
    },
    async refusedChannels(owners, notificationType) {
      const refused = new Map<string, ReadonlySet<string>>();
      const byType = new Map<string, string[]>();
      for (const owner of owners) {
        const ids = byType.get(owner.type) ?? [];
        byType.set(owner.type, ids);
        ids.push(owner.id);
      }
      for (const [ownerType, ids] of byType) {
        for (let start = 0; start < ids.length; start += batchSize) {
          const rows = await db
            .selectFrom('notification_preferences')
            .select(['notifiable_id', 'notification_type', 'channel', 'enabled'])
            .where('notifiable_type', '=', ownerType)
            .where('notifiable_id', 'in', ids.slice(start, start + batchSize))
            .where('notification_type', 'in', [notificationType, ANY_NOTIFICATION_TYPE])
            .execute();
          const perOwner = new Map<string, typeof rows>();
          for (const row of rows)
            perOwner.set(row.notifiable_id, [...(perOwner.get(row.notifiable_id) ?? []), row]);
          for (const [id, own] of perOwner) {
            const channels = refusedChannelsOf(preferencesOf(own), notificationType);
            if (channels.size > 0) refused.set(preferenceOwnerKey({ type: ownerType, id }), channels);
          }
        }
      }
      return refused;
    },
  };
}
