import { createECDH } from 'node:crypto';
import { type Context, Hono } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { z } from 'zod';
import { describeIssues, readJsonBody } from './internal/http.js';
import type { NotificationLogger } from './logger.js';
import { silentNotificationLogger } from './logger.js';
import { KNOWN_PUSH_SERVICES, pushEndpointsAllowed } from './push-endpoints.js';
import type { PushSubscriptionRecord, PushSubscriptions } from './push-subscriptions.js';
import type { NotifiableKey } from './record.js';
import { createUserAuth, type UserAuthOptions } from './user-auth.js';

/** Where the signed-in user reads the VAPID public key a browser subscribes with. */
export const PUSH_KEY_ROUTE = '/notification/push/key.json';
/** Where the signed-in user lists, saves (`POST`) and deletes (`DELETE`) their browsers' push subscriptions. */
export const PUSH_SUBSCRIPTIONS_ROUTE = '/notification/push/subscriptions.json';

/** Options of {@link createPushSubscriptionApi}; users are found as by the JSON API. */
export interface PushSubscriptionApiOptions extends UserAuthOptions {
  readonly subscriptions: PushSubscriptions;
  /** The VAPID public key (base64url) browsers pass to `pushManager.subscribe` as `applicationServerKey`. */
  readonly publicKey: string;
  /**
   * Which push service URLs may be saved: by default those of the known push services
   * ({@link KNOWN_PUSH_SERVICES}). A push goes to the saved URL, so anything wider lets a user make the service
   * post where they choose; `pushEndpointsAllowed([...])` makes one from host patterns.
   */
  readonly endpointAllowed?: ((endpoint: URL) => boolean) | undefined;
  readonly logger?: NotificationLogger | undefined;
}

/** The error codes the push routes answer with. */
export type PushApiErrorCode =
  | 'bad_request'
  /** The endpoint is not on a push service this service accepts. */
  | 'endpoint_not_allowed'
  | 'unauthenticated'
  | 'csrf_token_mismatch'
  | 'subscription_not_found'
  | 'validation_failed'
  | 'internal_error';

const STATUS: Record<PushApiErrorCode, ContentfulStatusCode> = {
  bad_request: 400,
  endpoint_not_allowed: 400,
  unauthenticated: 401,
  csrf_token_mismatch: 403,
  subscription_not_found: 404,
  validation_failed: 422,
  internal_error: 500,
};

function decodedLength(text: string): number {
  return Buffer.from(text, 'base64url').length;
}

/** True for an uncompressed P-256 point that lies on the curve (RFC 8291 §3.1: the browser's `p256dh`). */
function isP256Point(text: string): boolean {
  const bytes = Buffer.from(text, 'base64url');
  if (bytes.length !== 65 || bytes[0] !== 4) return false;
  try {
    const ecdh = createECDH('prime256v1');
    ecdh.generateKeys();
    ecdh.computeSecret(bytes);
    return true;
  } catch {
    // computeSecret refuses a point off the curve: that is the answer, not an error.
    return false;
  }
}

const base64url = z.string().regex(/^[A-Za-z0-9_-]+={0,2}$/, 'must be base64url');
const subscriptionBody = z.object({
  endpoint: z.url({ protocol: /^https$/, error: 'must be an https:// URL' }).max(2048),
  keys: z.object({
    p256dh: base64url.max(100).refine(isP256Point, 'must be an uncompressed P-256 public key (65 bytes)'),
    auth: base64url.max(100).refine((text) => decodedLength(text) === 16, 'must be 16 bytes'),
  }),
  expirationTime: z.number().int().nonnegative().nullable().optional(),
  label: z.string().trim().min(1).max(255).optional(),
});
const endpointBody = z.strictObject({ endpoint: z.string().min(1).max(2048) });

function view(record: PushSubscriptionRecord) {
  return {
    endpoint: record.endpoint,
    label: record.label,
    user_agent: record.userAgent,
    expires_at: record.expiresAt?.toISOString() ?? null,
    created_at: record.createdAt.toISOString(),
  };
}

type Env = { Variables: { owner: NotifiableKey } };

/**
 * Creates the Web Push routes as a hono router: the VAPID public key, and the signed-in user's push
 * subscriptions (list, save, delete), with the same user check as the JSON API.
 *
 * @example
 * app.route('/', createPushSubscriptionApi({ subscriptions, publicKey: keys.publicKey, userTokens }));
 */
export function createPushSubscriptionApi(options: PushSubscriptionApiOptions): Hono<Env> {
  const { subscriptions } = options;
  const logger = options.logger ?? silentNotificationLogger;
  const endpointAllowed = options.endpointAllowed ?? pushEndpointsAllowed(KNOWN_PUSH_SERVICES);
  const identify = createUserAuth(options);
  const app = new Hono<Env>();
  const fail = (c: Context, code: PushApiErrorCode, message: string, extra: object = {}) =>
    c.json({ error: { code, message, ...extra } }, STATUS[code]);

  app.onError((error, c) => {
    logger.error('push subscription API failed', { err: error.message, path: c.req.path });
    return fail(c, 'internal_error', 'something went wrong');
  });
  for (const path of [PUSH_KEY_ROUTE, PUSH_SUBSCRIPTIONS_ROUTE]) {
    app.use(path, async (c, next) => {
      const outcome = await identify(c, { write: c.req.method !== 'GET' && c.req.method !== 'HEAD' });
      if (!outcome.ok) return fail(c, outcome.code, outcome.message);
      c.set('owner', { type: outcome.user.type ?? 'User', id: String(outcome.user.id) });
      return next();
    });
  }

  const readBody = async <T extends z.ZodType>(c: Context, schema: T) => {
    const body = await readJsonBody(c, schema);
    if (body.ok) return { value: body.value } as const;
    if (body.reason === 'not_json')
      return { response: fail(c, 'bad_request', 'the request body is not valid JSON') } as const;
    const { issues } = body;
    return { response: fail(c, 'validation_failed', describeIssues(issues), { issues }) } as const;
  };

  app.get(PUSH_KEY_ROUTE, (c) => c.json({ data: { public_key: options.publicKey } }));
  app.get(PUSH_SUBSCRIPTIONS_ROUTE, async (c) =>
    c.json({ data: (await subscriptions.listFor(c.get('owner'))).map(view) }),
  );
  app.post(PUSH_SUBSCRIPTIONS_ROUTE, async (c) => {
    const body = await readBody(c, subscriptionBody);
    if ('response' in body) return body.response;
    const { endpoint, keys, expirationTime, label } = body.value;
    const url = new URL(endpoint);
    if (!endpointAllowed(url)) {
      return fail(
        c,
        'endpoint_not_allowed',
        `the endpoint's host ${url.host} is not a push service accepted here`,
      );
    }
    const record = await subscriptions.save(c.get('owner'), {
      endpoint,
      keys,
      label,
      expiresAt: typeof expirationTime === 'number' ? new Date(expirationTime) : null,
      userAgent: c.req.header('user-agent') ?? null,
    });
    return c.json({ data: view(record) }, 201);
  });
  app.delete(PUSH_SUBSCRIPTIONS_ROUTE, async (c) => {
    const body = await readBody(c, endpointBody);
    if ('response' in body) return body.response;
    const removed = await subscriptions.remove(c.get('owner'), body.value.endpoint);
    if (!removed) return fail(c, 'subscription_not_found', 'no push subscription with that endpoint');
    return c.json({ data: { endpoint: body.value.endpoint } });
  });
  return app;
}
