// The shapes the console's routes share.

import type { HttpConnection, RealtimeServer } from '@herald/realtime-server';
import type { WebhookDelivery } from '@herald/webhooks';
import type { ServedApp } from '../app-source.js';
import type { Asset } from './assets.js';
import type { ConsoleAuth, ConsoleSession } from './auth.js';
import type { Usage } from './usage.js';

/** What the console reads of the webhooks (absent when no app has webhooks). */
export interface ConsoleWebhooks {
  recent(appId: string): WebhookDelivery[];
  backlog(appId: string): Promise<number>;
  resend(appId: string, id: string): Promise<'queued' | 'full' | 'not_found'>;
}

/** What the console's routes are built from. */
export interface ConsoleRoutesOptions {
  readonly server: RealtimeServer;
  readonly apps: () => readonly ServedApp[];
  readonly auth: ConsoleAuth;
  readonly usage: Usage;
  readonly webhooks: () => ConsoleWebhooks | undefined;
  /** The server's `path` prefix ('' when none). */
  readonly path: string;
  readonly assets: ReadonlyMap<string, Asset>;
}

/**
 * The hono environment of the console's routes: the connection the server hands over beside each request (its
 * client address), and the session the middleware found.
 */
export type ConsoleEnv = { Bindings: HttpConnection; Variables: { session: ConsoleSession } };
