import { fail, ok, type Result } from '@herald/protocol-core';
import { z } from 'zod';

/** The icon names the bell draws without extra CSS. */
export const NOTIFICATION_ICONS = ['bell', 'post', 'user', 'message', 'alert', 'check', 'info'] as const;

/** One of the bell's built-in icon names. */
export type NotificationIcon = (typeof NOTIFICATION_ICONS)[number];

const actionSchema = z.strictObject({
  name: z.string().min(1),
  label: z.string().min(1),
  url: z.string().min(1).optional(),
  event: z.string().min(1).optional(),
  icon: z.string().min(1).optional(),
  color: z.string().min(1).optional(),
  type: z.string().min(1).optional(),
  openInNewTab: z.boolean().optional(),
  shouldClose: z.boolean().optional(),
  isDisabled: z.boolean().optional(),
});

/** The schema of what the `database` channel stores: `title` and `message` required, the bell's keys optional. */
export const notificationDataSchema = z.looseObject({
  title: z.string().min(1),
  message: z.string().min(1),
  action_url: z.string().min(1).optional(),
  icon: z.enum(NOTIFICATION_ICONS).optional(),
  icon_class: z.string().min(1).optional(),
  actions: z.array(actionSchema).optional(),
});

/** A button or link shown under a notification in the bell. */
export type NotificationAction = z.infer<typeof actionSchema>;

/** The data of a stored notification, as the bell reads it; extra keys are kept. */
export type NotificationData = z.infer<typeof notificationDataSchema>;

/** Why notification data was refused: one line per problem, each naming the key at fault. */
export interface NotificationDataError {
  readonly message: string;
  readonly issues: readonly string[];
}

/** Checks `toDatabase()` output and returns it typed, or every problem found. */
export function parseNotificationData(value: unknown): Result<NotificationData, NotificationDataError> {
  const parsed = notificationDataSchema.safeParse(value);
  if (parsed.success) return ok(parsed.data);
  const issues = parsed.error.issues.map(
    (issue) => `${issue.path.length > 0 ? issue.path.join('.') : '(root)'}: ${issue.message}`,
  );
  return fail({ message: `invalid notification data: ${issues.join('; ')}`, issues });
}
