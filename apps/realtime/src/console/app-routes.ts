// The console's data routes of one app: overview, live log, channels, publish, webhooks, usage. Mounted by
// `createConsoleRoutes` behind its session and CSRF middleware.

import { describeChannel, validateChannelName } from '@herald/protocol-core';
import { DEBUG_EVENT_KINDS, type DebugEventKind } from '@herald/realtime-server';
import type { Context, Hono } from 'hono';
import { z } from 'zod';
import { liveLog } from './live-log.js';
import type { ConsoleEnv, ConsoleRoutesOptions } from './types.js';

const KINDS: readonly DebugEventKind[] = DEBUG_EVENT_KINDS;

const publishBody = z
  .object({
    channel: z.string().min(1),
    event: z.string().min(1).max(200),
    data: z.string().max(100_000).default('{}'),
  })
  .strict();

/** A JSON error answer, as every console route gives one. */
export function fail(
  c: Context,
  status: 400 | 401 | 403 | 404 | 409 | 429 | 503,
  code: string,
  message: string,
) {
  return c.json({ error: { code, message } }, status);
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}

/** Adds the per-app data routes under `/api/apps`. */
export function addAppRoutes(app: Hono<ConsoleEnv>, options: ConsoleRoutesOptions): void {
  const { server, usage } = options;
  const appOf = (id: string) => options.apps().find((served) => served.id === id);

  app.get('/api/apps', async (c) => {
    const hooks = options.webhooks();
    const apps = await Promise.all(
      options.apps().map(async (served) => {
        const [connections, channels, backlog, rates] = await Promise.all([
          server.connectionCount(served.id),
          server.channels(served.id),
          hooks && served.webhooks.length > 0 ? hooks.backlog(served.id) : 0,
          usage.rates(served.id),
        ]);
        return {
          id: served.id,
          name: served.name ?? served.id,
          key: served.key,
          enabled: served.enabled,
          connections,
          channels: channels.length,
          messagesPerSecond: { in: round(rates.in), out: round(rates.out) },
          webhooks: served.webhooks.length,
          webhookBacklog: backlog,
        };
      }),
    );
    return c.json({ apps });
  });

  /** The app named in the path, or a 404 answer. */
  const withApp = (c: Context) => {
    const id = c.req.param('id') ?? '';
    return appOf(id);
  };

  app.post('/api/apps/:id/secret', (c) => {
    const served = withApp(c);
    if (!served) return fail(c, 404, 'unknown_app', 'No app with this id');
    return c.json({ secret: served.secret });
  });

  app.get('/api/apps/:id/log', (c) => {
    const served = withApp(c);
    if (!served) return fail(c, 404, 'unknown_app', 'No app with this id');
    const kinds = c.req
      .query('kind')
      ?.split(',')
      .filter((kind): kind is DebugEventKind => (KINDS as readonly string[]).includes(kind));
    return liveLog(server.debug, served.id, {
      channel: c.req.query('channel') || undefined,
      kinds: kinds && kinds.length > 0 ? new Set(kinds) : undefined,
    });
  });

  app.get('/api/apps/:id/channels', async (c) => {
    const served = withApp(c);
    if (!served) return fail(c, 404, 'unknown_app', 'No app with this id');
    const channels = await server.channels(served.id, c.req.query('prefix') || undefined);
    channels.sort((a, b) => a.name.localeCompare(b.name));
    return c.json({ channels });
  });

  app.get('/api/apps/:id/channels/:name', async (c) => {
    const served = withApp(c);
    if (!served) return fail(c, 404, 'unknown_app', 'No app with this id');
    const name = c.req.param('name');
    const details = await server.channel(served.id, name);
    const traits = describeChannel(name);
    const members = traits.presence ? await server.presenceMembers(served.id, name) : undefined;
    return c.json({ name, kind: traits.kind, ...details, ...(members ? { members } : {}) });
  });

  app.post('/api/apps/:id/events', async (c) => {
    const served = withApp(c);
    if (!served) return fail(c, 404, 'unknown_app', 'No app with this id');
    const body = publishBody.safeParse(await c.req.json().catch(() => undefined));
    if (!body.success) {
      const issue = body.error.issues[0];
      return fail(
        c,
        400,
        'invalid_event',
        `${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'}`,
      );
    }
    const name = validateChannelName(body.data.channel);
    if (!name.ok) return fail(c, 400, 'invalid_channel', name.error.message);
    server.publish(served.id, {
      channels: [body.data.channel],
      event: body.data.event,
      data: body.data.data,
    });
    return c.json({ ok: true });
  });

  app.get('/api/apps/:id/webhooks', async (c) => {
    const served = withApp(c);
    if (!served) return fail(c, 404, 'unknown_app', 'No app with this id');
    const hooks = options.webhooks();
    if (!hooks) return c.json({ targets: served.webhooks.length, backlog: 0, deliveries: [] });
    return c.json({
      targets: served.webhooks.length,
      backlog: await hooks.backlog(served.id),
      deliveries: hooks.recent(served.id),
    });
  });

  app.post('/api/apps/:id/webhooks/:delivery/resend', async (c) => {
    const served = withApp(c);
    if (!served) return fail(c, 404, 'unknown_app', 'No app with this id');
    const hooks = options.webhooks();
    const outcome = hooks ? await hooks.resend(served.id, c.req.param('delivery')) : 'not_found';
    if (outcome === 'not_found') return fail(c, 404, 'not_found', 'No failed delivery with this id');
    if (outcome === 'full') return fail(c, 503, 'queue_full', 'The app’s webhook queue is full');
    return c.json({ ok: true });
  });

  app.get('/api/apps/:id/usage', async (c) => {
    const served = withApp(c);
    if (!served) return fail(c, 404, 'unknown_app', 'No app with this id');
    usage.sample();
    return c.json(await usage.series(served.id));
  });
}
