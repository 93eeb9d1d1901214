import { z } from 'zod';

/** The shortest token accepted: a console token guards every app's traffic and secrets. */
export const MIN_TOKEN_LENGTH = 16;

/**
 * The operator console (`console`): off unless turned on, and never on without a token. With embedded defaults
 * (no config file) it is on, with a token made at start and printed beside the demo app's keys.
 */
export const consoleSchema = z
  .object({
    enabled: z.boolean().default(false),
    /** Exchanged for a session cookie at `/console?token=…` or in the sign-in form (`REALTIME_CONSOLE_TOKEN`). */
    token: z.string().min(MIN_TOKEN_LENGTH, `must be at least ${MIN_TOKEN_LENGTH} characters`).optional(),
    /** How long a sign-in lasts, in hours. */
    session_hours: z
      .number()
      .positive()
      .max(24 * 30)
      .default(12),
  })
  .strict()
  .superRefine((settings, ctx) => {
    if (settings.enabled && settings.token === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['token'],
        message: `is required when the console is enabled (at least ${MIN_TOKEN_LENGTH} characters; or set REALTIME_CONSOLE_TOKEN)`,
      });
    }
  });

export type ConsoleConfig = z.output<typeof consoleSchema>;
