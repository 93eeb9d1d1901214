import { z } from 'zod';

/** The placeholder session secret: fine on a laptop, refused when NODE_ENV=production. */
export const DEMO_SESSION_SECRET = 'herald-notification-center-demo-secret';

const port = z.coerce.number().int().min(0).max(65535);

/** The environment variables the app reads, all optional. */
export const envSchema = z
  .object({
    NODE_ENV: z.string().optional(),
    NOTIFICATION_CENTER_HOST: z.string().min(1).default('127.0.0.1'),
    NOTIFICATION_CENTER_PORT: port.default(8090),
    DATABASE_URL: z.url().optional(),
    NOTIFICATION_DATABASE_SCHEMA: z.string().min(1).default('public'),
    NOTIFICATION_PGLITE_DIR: z.string().min(1).default('./data/notifications'),
    REALTIME_URL: z.url().optional(),
    REALTIME_APP_ID: z.string().min(1).optional(),
    REALTIME_APP_KEY: z.string().min(1).optional(),
    REALTIME_APP_SECRET: z.string().min(1).optional(),
    /** JSON object of team-chat webhook URLs by channel name, e.g. {"teamchat":"https://chat/hooks/…"}. */
    TEAMCHAT_WEBHOOKS: z
      .string()
      .optional()
      .transform((text, ctx) => {
        if (!text) return {};
        try {
          return z.record(z.string().min(1), z.url()).parse(JSON.parse(text));
        } catch {
          ctx.addIssue({ code: 'custom', message: 'must be a JSON object of channel name to webhook URL' });
          return z.NEVER;
        }
      }),
    SESSION_SECRET: z.string().min(16).default(DEMO_SESSION_SECRET),
    /** The secret other backends send to `POST /notification/send`; unset turns the send API off (503). */
    NOTIFICATION_API_SECRET: z.string().min(16, 'must be at least 16 characters').optional(),
    NOTIFICATION_BELL_ASSETS: z.string().min(1).optional(),
  })
  .superRefine((env, ctx) => {
    const realtime = [env.REALTIME_URL, env.REALTIME_APP_ID, env.REALTIME_APP_KEY, env.REALTIME_APP_SECRET];
    if (realtime.some(Boolean) && !realtime.every(Boolean)) {
      ctx.addIssue({
        code: 'custom',
        path: ['REALTIME_URL'],
        message: 'set REALTIME_URL, REALTIME_APP_ID, REALTIME_APP_KEY and REALTIME_APP_SECRET together',
      });
    }
    if (env.NODE_ENV === 'production' && env.SESSION_SECRET === DEMO_SESSION_SECRET) {
      ctx.addIssue({
        code: 'custom',
        path: ['SESSION_SECRET'],
        message: 'set a SESSION_SECRET of your own in production',
      });
    }
  });

/** The real-time server the app publishes through and the browser connects to. */
export interface RealtimeTarget {
  readonly url: string;
  readonly appId: string;
  readonly key: string;
  readonly secret: string;
}

/** The app's configuration, decided from the environment. */
export interface CenterConfig {
  readonly host: string;
  readonly port: number;
  readonly database: { readonly url: string; readonly schema: string } | { readonly dataDir: string };
  readonly realtime: RealtimeTarget | undefined;
  readonly teamChatWebhooks: Readonly<Record<string, string>>;
  readonly sessionSecret: string;
  /** The send API's secret; undefined turns the send API off. */
  readonly apiSecret: string | undefined;
  readonly bellAssetsDir: string | undefined;
}

/** Reads the configuration from environment variables, or lists every problem with its variable name. */
export function configFromEnv(
  env: Record<string, string | undefined>,
): { ok: true; config: CenterConfig } | { ok: false; problems: string[] } {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    return {
      ok: false,
      problems: parsed.error.issues.map((issue) => `${issue.path.join('.') || '(env)'}: ${issue.message}`),
    };
  }
  const e = parsed.data;
  return {
    ok: true,
    config: {
      host: e.NOTIFICATION_CENTER_HOST,
      port: e.NOTIFICATION_CENTER_PORT,
      database: e.DATABASE_URL
        ? { url: e.DATABASE_URL, schema: e.NOTIFICATION_DATABASE_SCHEMA }
        : { dataDir: e.NOTIFICATION_PGLITE_DIR },
      realtime:
        e.REALTIME_URL && e.REALTIME_APP_ID && e.REALTIME_APP_KEY && e.REALTIME_APP_SECRET
          ? {
              url: e.REALTIME_URL,
              appId: e.REALTIME_APP_ID,
              key: e.REALTIME_APP_KEY,
              secret: e.REALTIME_APP_SECRET,
            }
          : undefined,
      teamChatWebhooks: e.TEAMCHAT_WEBHOOKS,
      sessionSecret: e.SESSION_SECRET,
      apiSecret: e.NOTIFICATION_API_SECRET,
      bellAssetsDir: e.NOTIFICATION_BELL_ASSETS,
    },
  };
}
