import {
  DEFAULT_USER_TOKEN_AUDIENCE,
  isPushEndpointPattern,
  KNOWN_PUSH_SERVICES,
  type NotificationTypeSettings,
  notificationTypeSettingsSchema,
} from '@herald/notifications';
import { hmacHex, parseStoreKey } from '@herald/protocol-core';
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
    /** The SMTP server email goes through, e.g. smtp://user:pass@mail.example:587; unset: no `email` channel. */
    NOTIFICATION_SMTP_URL: z
      .url()
      .refine((text) => /^smtps?:$/.test(new URL(text).protocol), {
        message: 'must be an smtp:// or smtps:// URL',
      })
      .optional(),
    NOTIFICATION_MAIL_FROM: z.string().min(3).default('Herald notifications <notifications@localhost>'),
    /** The service's URL as recipients' mail clients reach it (for unsubscribe links); http://host:port when unset. */
    NOTIFICATION_PUBLIC_URL: z.url().optional(),
    /** Signs unsubscribe links; derived from SESSION_SECRET when unset. */
    NOTIFICATION_UNSUBSCRIBE_SECRET: z.string().min(16, 'must be at least 16 characters').optional(),
    /** JSON object of notification type to its away settings: {"CommentReplied":{"away_after_seconds":60}}. */
    NOTIFICATION_TYPES: z
      .string()
      .optional()
      .transform((text, ctx) => {
        if (!text) return {};
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          ctx.addIssue({
            code: 'custom',
            message: 'must be a JSON object of notification type to its settings',
          });
          return z.NEVER;
        }
        const parsed = z.record(z.string().min(1), notificationTypeSettingsSchema).safeParse(json);
        if (!parsed.success) {
          for (const issue of parsed.error.issues) {
            ctx.addIssue({ code: 'custom', message: `${issue.path.join('.')}: ${issue.message}` });
          }
          return z.NEVER;
        }
        return parsed.data;
      }),
    /** The secret other backends send to `POST /notification/send`; unset turns the send API off (503). */
    NOTIFICATION_API_SECRET: z.string().min(16, 'must be at least 16 characters').optional(),
    NOTIFICATION_BELL_ASSETS: z.string().min(1).optional(),
    /** HS256 secret user tokens are signed with; derived from SESSION_SECRET when unset. */
    NOTIFICATION_USER_TOKEN_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
    /** Ed25519 public key (PEM, SPKI; `\n` may stand for line breaks) EdDSA user tokens are checked with. */
    NOTIFICATION_USER_TOKEN_PUBLIC_KEY: z
      .string()
      .optional()
      .transform((text) => text?.replaceAll('\\n', '\n'))
      .refine((text) => text === undefined || text.includes('-----BEGIN PUBLIC KEY-----'), {
        message: 'must be a PEM public key (-----BEGIN PUBLIC KEY-----)',
      }),
    NOTIFICATION_USER_TOKEN_AUDIENCE: z.string().min(1).default(DEFAULT_USER_TOKEN_AUDIENCE),
    NOTIFICATION_USER_TOKEN_ISSUER: z.string().min(1).optional(),
    NOTIFICATION_USER_TOKEN_CLOCK_SKEW: z.coerce.number().int().min(0).max(600).default(30),
    // --- Web Push: on always; keys from here, else generated once and kept in the store ---
    NOTIFICATION_VAPID_PUBLIC_KEY: z
      .string()
      .regex(/^[A-Za-z0-9_-]{87}$/, 'must be a base64url P-256 public key (87 characters)')
      .optional(),
    NOTIFICATION_VAPID_PRIVATE_KEY: z
      .string()
      .regex(/^[A-Za-z0-9_-]{43}$/, 'must be a base64url P-256 private key (43 characters)')
      .optional(),
    /** The contact push services may use (RFC 8292 `sub`): mailto: or https:; the mail sender's address when unset. */
    NOTIFICATION_VAPID_SUBJECT: z
      .string()
      .regex(/^(mailto:\S+|https:\/\/\S+)$/, 'must be a mailto: address or an https:// URL')
      .optional(),
    /** Seconds a push service keeps a push for a browser that is offline. */
    NOTIFICATION_PUSH_TTL: z.coerce.number().int().min(0).max(2_419_200).default(86_400),
    /** A PEM file of CA certificates trusted for push services besides the usual ones. */
    NOTIFICATION_PUSH_CA_FILE: z.string().min(1).optional(),
    /**
     * Comma-separated hosts browsers' push endpoints may be on (`push.example`, `*.push.example`, `host:port`, `*`
     * for any); the known push services when unset. The service posts to these, so keep the list short.
     */
    NOTIFICATION_PUSH_ENDPOINTS: z
      .string()
      .optional()
      .transform((text, ctx) => {
        if (text === undefined || text.trim() === '') return [...KNOWN_PUSH_SERVICES];
        const patterns = text
          .split(',')
          .map((item) => item.trim())
          .filter(Boolean);
        for (const pattern of patterns.filter((item) => !isPushEndpointPattern(item))) {
          ctx.addIssue({
            code: 'custom',
            message: `"${pattern}" is not a host pattern such as fcm.googleapis.com, *.push.apple.com or 127.0.0.1:8443`,
          });
        }
        return patterns;
      }),
    // --- end Web Push ---
    /**
     * 32 bytes (64 hex characters or base64) that seal secrets the store keeps (the generated VAPID private key)
     * with AES-256-GCM; unset: kept in plaintext.
     */
    NOTIFICATION_STORE_KEY: z
      .string()
      .optional()
      .transform((text, ctx) => {
        if (text === undefined || text === '') return undefined;
        const parsed = parseStoreKey(text);
        if (parsed.ok) return parsed.value;
        ctx.addIssue({ code: 'custom', message: parsed.error });
        return z.NEVER;
      }),
    /** Comma-separated origins of host pages allowed to call the user routes cross-origin (CORS). */
    NOTIFICATION_CORS_ORIGINS: z
      .string()
      .optional()
      .transform((text, ctx) => {
        const origins = (text ?? '')
          .split(',')
          .map((item) => item.trim())
          .filter(Boolean);
        for (const origin of origins) {
          let parsed: URL | undefined;
          try {
            parsed = new URL(origin);
          } catch {
            parsed = undefined;
          }
          if (origin !== '*' && parsed?.origin !== origin) {
            ctx.addIssue({
              code: 'custom',
              message: `"${origin}" is not an origin such as https://app.example.com (scheme, host, port; no path)`,
            });
          }
        }
        return origins;
      }),
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
    if (Boolean(env.NOTIFICATION_VAPID_PUBLIC_KEY) !== Boolean(env.NOTIFICATION_VAPID_PRIVATE_KEY)) {
      ctx.addIssue({
        code: 'custom',
        path: ['NOTIFICATION_VAPID_PUBLIC_KEY'],
        message: 'set NOTIFICATION_VAPID_PUBLIC_KEY and NOTIFICATION_VAPID_PRIVATE_KEY together',
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
  /** Origins allowed to call the user routes from another origin; `*` allows any. */
  readonly corsOrigins: readonly string[];
  /** How user tokens are checked (and, for the demo page, signed). */
  readonly userTokens: UserTokenConfig;
  /** Email through SMTP; undefined: no `email` channel. */
  readonly email: { readonly smtpUrl: string; readonly from: string } | undefined;
  /** The service's public URL, for links in email. */
  readonly publicUrl: string;
  readonly unsubscribeSecret: string;
  /** Away settings per notification type. */
  readonly types: Readonly<Record<string, NotificationTypeSettings>>;
  /** Web Push (the `push` away channel). */
  readonly push: PushConfig;
  /** The key secrets at rest are sealed with (NOTIFICATION_STORE_KEY); undefined: kept in plaintext. */
  readonly storeKey: Uint8Array | undefined;
}

/** Web Push settings: the VAPID keys when configured (else the store's), the VAPID subject, TTL, extra CAs. */
export interface PushConfig {
  readonly vapidKeys: { readonly publicKey: string; readonly privateKey: string } | undefined;
  readonly subject: string;
  readonly ttlSeconds: number;
  readonly caFile: string | undefined;
  /** The host patterns browsers' push endpoints may be on (the known push services by default). */
  readonly endpoints: readonly string[];
}

/** The VAPID subject: the one set, else the mail sender's address (`Name <addr>` or `addr`) as a mailto:. */
function vapidSubjectOf(subject: string | undefined, mailFrom: string): string {
  if (subject) return subject;
  const address = /<([^<>\s]+@[^<>\s]+)>/.exec(mailFrom)?.[1] ?? mailFrom.trim();
  return `mailto:${address}`;
}

/** The user-token settings: the HS256 secret, an optional EdDSA public key, and the claims checked. */
export interface UserTokenConfig {
  readonly secret: string;
  readonly publicKey: string | undefined;
  readonly audience: string;
  readonly issuer: string | undefined;
  readonly clockToleranceSeconds: number;
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
      corsOrigins: e.NOTIFICATION_CORS_ORIGINS,
      userTokens: {
        // Derived, so a local run works with nothing set; a host backend that signs tokens sets its own.
        secret: e.NOTIFICATION_USER_TOKEN_SECRET ?? hmacHex(e.SESSION_SECRET, 'herald-user-token'),
        publicKey: e.NOTIFICATION_USER_TOKEN_PUBLIC_KEY,
        audience: e.NOTIFICATION_USER_TOKEN_AUDIENCE,
        issuer: e.NOTIFICATION_USER_TOKEN_ISSUER,
        clockToleranceSeconds: e.NOTIFICATION_USER_TOKEN_CLOCK_SKEW,
      },
      email: e.NOTIFICATION_SMTP_URL
        ? { smtpUrl: e.NOTIFICATION_SMTP_URL, from: e.NOTIFICATION_MAIL_FROM }
        : undefined,
      publicUrl:
        e.NOTIFICATION_PUBLIC_URL ?? `http://${e.NOTIFICATION_CENTER_HOST}:${e.NOTIFICATION_CENTER_PORT}`,
      unsubscribeSecret: e.NOTIFICATION_UNSUBSCRIBE_SECRET ?? hmacHex(e.SESSION_SECRET, 'herald-unsubscribe'),
      types: e.NOTIFICATION_TYPES,
      push: {
        vapidKeys:
          e.NOTIFICATION_VAPID_PUBLIC_KEY && e.NOTIFICATION_VAPID_PRIVATE_KEY
            ? { publicKey: e.NOTIFICATION_VAPID_PUBLIC_KEY, privateKey: e.NOTIFICATION_VAPID_PRIVATE_KEY }
            : undefined,
        subject: vapidSubjectOf(e.NOTIFICATION_VAPID_SUBJECT, e.NOTIFICATION_MAIL_FROM),
        ttlSeconds: e.NOTIFICATION_PUSH_TTL,
        caFile: e.NOTIFICATION_PUSH_CA_FILE,
        endpoints: e.NOTIFICATION_PUSH_ENDPOINTS,
      },
      storeKey: e.NOTIFICATION_STORE_KEY,
    },
  };
}
