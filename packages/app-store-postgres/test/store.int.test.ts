import type { LogFields, Logger } from '@herald/protocol-core';
import type { AppStore } from '@herald/realtime-server';
import {
  dropSchema,
  POSTGRES_URL,
  randomSchema,
  sleep,
  sql,
  startTcpProxy,
  type TcpProxy,
  until,
} from '@herald/test-kit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type AppStoreMetrics,
  createPostgresAppStore,
  isAppStorePostgresError,
  type PostgresAppStore,
  type StoredApp,
} from '../src/index.js';

/** Where the tests' PostgreSQL is, for the proxy that cuts it off. */
const PG = new URL(POSTGRES_URL);
const PG_TARGET = { host: PG.hostname, port: Number(PG.port || 5432) };
/** The same database through a proxy on `port`. */
const throughProxy = (port: number) => {
  const url = new URL(POSTGRES_URL);
  url.host = `127.0.0.1:${port}`;
  return url.toString();
};

interface Logged {
  level: string;
  message: string;
  fields: LogFields | undefined;
}

function recordingLogger(into: Logged[]): Logger {
  const at =
    (level: string) =>
    (message: string, fields?: LogFields): void => {
      into.push({ level, message, fields });
    };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

function countingMetrics(): AppStoreMetrics & { outages: number; restores: number; skipped: number } {
  const counts = { outages: 0, restores: 0, skipped: 0 };
  return Object.assign(counts, {
    outage: () => {
      counts.outages += 1;
    },
    restored: () => {
      counts.restores += 1;
    },
    skippedRows: (count: number) => {
      counts.skipped = count;
    },
  });
}

/** Resolves with the first list a watcher is given that passes the test (tens of seconds at most). */
function nextList(
  store: PostgresAppStore,
  test: (apps: readonly StoredApp[]) => boolean,
  timeoutMs = 20_000,
): Promise<{ apps: readonly StoredApp[]; at: number }> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      stop();
      reject(new Error('no matching app list arrived'));
    }, timeoutMs);
    const stop = store.watch((apps) => {
      if (!test(apps)) return;
      clearTimeout(timer);
      stop();
      resolve({ apps, at: Date.now() });
    });
  });
}

const ids = (apps: readonly StoredApp[]) => apps.map((app) => app.id);

describe('PostgreSQL app store', () => {
  const schema = randomSchema('herald_apps_test');
  const stores: PostgresAppStore[] = [];
  const open = (extra: Partial<Parameters<typeof createPostgresAppStore>[0]> = {}) => {
    const store = createPostgresAppStore({ url: POSTGRES_URL, schema, ...extra });
    stores.push(store);
    return store;
  };

  afterEach(async () => {
    await Promise.all(stores.splice(0).map((store) => store.close()));
    await sql(`TRUNCATE "${schema}".herald_apps`).catch(() => undefined);
  });
  afterAll(async () => {
    await dropSchema(schema);
  });

  it('implements the real-time server’s AppStore port', () => {
    const port: AppStore<StoredApp> = open();
    expect(typeof port.watch).toBe('function');
  });

  it('migrates idempotently, also from several stores at once', async () => {
    await Promise.all([open().migrate(), open().migrate(), open().migrate()]);
    await open().migrate();
    const columns = await sql(
      'SELECT column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2',
      [schema, 'herald_apps'],
    );
    const names = columns.rows.map((row: { column_name: string }) => row.column_name);
    expect(names).toEqual(
      expect.arrayContaining(['id', 'key', 'secret', 'max_connections', 'allowed_origins', 'webhooks']),
    );
    const triggers = await sql(
      `SELECT tgname FROM pg_trigger WHERE tgrelid = '"${schema}".herald_apps'::regclass AND NOT tgisinternal`,
    );
    expect(triggers.rows.map((row: { tgname: string }) => row.tgname).sort()).toEqual([
      'herald_apps_notify',
      'herald_apps_notify_truncate',
    ]);
  });

  it('adds, reads, updates and disables apps with the same keys as the config file', async () => {
    const store = open();
    const added = await store.add({
      id: 'shop',
      key: 'shop-key',
      secret: 'shop-secret',
      max_connections: 5,
      allowed_origins: ['https://shop.example'],
      webhooks: [{ url: 'https://hooks.example/pusher', event_types: ['channel_occupied'] }],
      webhook_batching: { enabled: true, window_ms: 50 },
    });
    expect(added).toEqual({
      id: 'shop',
      key: 'shop-key',
      secret: 'shop-secret',
      max_connections: 5,
      allowed_origins: ['https://shop.example'],
      webhooks: [{ url: 'https://hooks.example/pusher', event_types: ['channel_occupied'] }],
      webhook_batching: { enabled: true, window_ms: 50 },
    });
    expect(await store.update('shop', { max_connections: 10, name: 'Shop' })).toMatchObject({
      max_connections: 10,
      name: 'Shop',
    });
    expect(await store.update('shop', { max_connections: null })).not.toHaveProperty('max_connections');
    expect((await store.disable('shop')).enabled).toBe(false);
    expect(ids(await store.load())).toEqual(['shop']);
  });

  it('refuses a bad value naming the column, a taken key, and an unknown app', async () => {
    const store = open();
    await store.add({ id: 'a', key: 'a-key', secret: 's' });
    const refusal = async (write: () => Promise<unknown>) => {
      try {
        await write();
      } catch (error) {
        return isAppStorePostgresError(error) ? `${error.code}: ${error.message}` : String(error);
      }
      return 'accepted';
    };
    expect(await refusal(() => store.update('a', { max_connections: -1 }))).toBe(
      'invalid_app: max_connections: must be a positive integer',
    );
    expect(await refusal(() => store.update('a', { colour: 'red' } as never))).toBe(
      'invalid_app: colour: is not a column of the app table',
    );
    expect(await refusal(() => store.add({ id: 'b', key: 'a-key', secret: 's' }))).toMatch(/^conflict: /);
    expect(await refusal(() => store.disable('nobody'))).toBe('not_found: no app has the id "nobody"');
  });

  it('tells every watcher about a change made by any writer within a second', async () => {
    const store = open();
    // The first watcher LISTENs and reads everything before it is told anything.
    await nextList(store, (apps) => apps.length === 0);
    const seen = nextList(store, (apps) => ids(apps).includes('late'));
    const before = Date.now();
    // A writer that is not this package: the table's trigger notifies.
    await sql(
      `INSERT INTO "${schema}".herald_apps (id, key, secret, max_connections) VALUES ($1, $2, $3, $4)`,
      ['late', 'late-key', 'late-secret', 3],
    );
    const { apps, at } = await seen;
    expect(at - before).toBeLessThan(1000);
    expect(apps.find((app) => app.id === 'late')).toMatchObject({ key: 'late-key', max_connections: 3 });

    const removed = nextList(store, (list) => !ids(list).includes('late'));
    await sql(`DELETE FROM "${schema}".herald_apps WHERE id = 'late'`);
    await removed;
  });

  it('skips a malformed row with a log line naming the app and the column, serving the others', async () => {
    const logged: Logged[] = [];
    const metrics = countingMetrics();
    const store = open({ logger: recordingLogger(logged), metrics });
    await store.add({ id: 'good', key: 'good-key', secret: 's' });
    await sql(
      `INSERT INTO "${schema}".herald_apps (id, key, secret, allowed_origins) VALUES ($1, $2, $3, $4)`,
      ['broken', 'broken-key', 's', '"*"'],
    );
    expect(ids(await store.load())).toEqual(['good']);
    expect(metrics.skipped).toBe(1);
    expect(logged).toContainEqual({
      level: 'warn',
      message: 'app row skipped',
      fields: expect.objectContaining({
        appId: 'broken',
        column: 'allowed_origins',
        reason: 'must be a non-empty JSON array of origins (strings)',
      }),
    });
  });

  it('rotates a secret, keeps the old one for the grace period, then drops it from the row', async () => {
    const store = open();
    await store.add({ id: 'rot', key: 'rot-key', secret: 'first' });
    await nextList(store, (apps) => ids(apps).includes('rot'));
    const rotated = await store.rotateSecret('rot', { graceSeconds: 1, secret: 'second' });
    expect(rotated.secret).toBe('second');
    expect(rotated.app.secret).toBe('second');
    expect(rotated.app.previous_secrets).toEqual([{ secret: 'first', until: rotated.previousValidUntil }]);
    expect(rotated.previousValidUntil - Date.now()).toBeGreaterThan(0);
    expect(rotated.previousValidUntil - Date.now()).toBeLessThanOrEqual(1000);

    const generated = await store.rotateSecret('rot', { graceSeconds: 0 });
    expect(generated.secret).toMatch(/^[0-9a-f]{64}$/);
    // A rotation without grace keeps the earlier rotation's secret for the rest of its period only.
    expect(generated.app.previous_secrets?.map((entry) => entry.secret)).toEqual(['first']);

    const dropped = await nextList(
      store,
      (apps) => apps.find((app) => app.id === 'rot')?.previous_secrets === undefined,
    );
    expect(dropped.apps.find((app) => app.id === 'rot')?.secret).toBe(generated.secret);
    await until(async () => {
      const row = await sql(`SELECT previous_secrets FROM "${schema}".herald_apps WHERE id = 'rot'`);
      return JSON.stringify(row.rows[0]?.previous_secrets) === '[]';
    });
  });

  describe('when PostgreSQL goes away', () => {
    let proxy: TcpProxy;
    beforeAll(async () => {
      proxy = await startTcpProxy(PG_TARGET);
    });
    afterAll(async () => {
      await proxy.close();
    });

    it('keeps the known apps, logs and counts the outage once, and picks up changes made meanwhile', async () => {
      const logged: Logged[] = [];
      const metrics = countingMetrics();
      const writer = open();
      await writer.add({ id: 'known', key: 'known-key', secret: 's' });
      const store = open({
        url: throughProxy(proxy.port),
        logger: recordingLogger(logged),
        metrics,
        reconnectDelayMs: 50,
        maxReconnectDelayMs: 200,
      });
      const watching = nextList(store, (apps) => ids(apps).includes('known'));
      // Watching for the whole test: an outage only matters (and is only counted) while someone watches.
      const stopWatching = store.watch(() => {});
      await watching;

      proxy.cut();
      await until(() => metrics.outages === 1);
      expect(store.connected).toBe(false);
      expect(ids(store.current())).toEqual(['known']);
      await writer.add({ id: 'meanwhile', key: 'meanwhile-key', secret: 's' });
      await writer.update('known', { max_connections: 7 });
      // Several reconnect attempts fail while it is cut: still one outage, one warning.
      await sleep(600);
      expect(metrics.outages).toBe(1);
      expect(logged.filter((entry) => entry.level === 'warn').map((entry) => entry.message)).toEqual([
        'app store unreachable: serving the known apps from memory',
      ]);

      const back = nextList(store, (apps) => ids(apps).includes('meanwhile'));
      proxy.restore();
      const { apps } = await back;
      expect(apps.find((app) => app.id === 'known')?.max_connections).toBe(7);
      expect(store.connected).toBe(true);
      expect(metrics.restores).toBe(1);
      expect(logged.map((entry) => entry.message)).toContain('app store reachable again: every app re-read');

      // And it listens again: a later change arrives as usual.
      const later = nextList(store, (list) => ids(list).includes('after'));
      await writer.add({ id: 'after', key: 'after-key', secret: 's' });
      await later;
      stopWatching();
    });

    it('notices a database gone silent (no error, no close) by its health check, and recovers', async () => {
      const metrics = countingMetrics();
      const writer = open();
      await writer.add({ id: 'quiet', key: 'quiet-key', secret: 's' });
      const store = open({
        url: throughProxy(proxy.port),
        metrics,
        healthCheckMs: 100,
        healthTimeoutMs: 300,
        connectTimeoutMs: 500,
        reconnectDelayMs: 50,
        maxReconnectDelayMs: 200,
      });
      const watching = nextList(store, (apps) => ids(apps).includes('quiet'));
      const stopWatching = store.watch(() => {});
      await watching;

      proxy.freeze();
      await until(() => metrics.outages === 1);
      expect(ids(store.current())).toContain('quiet');
      await writer.update('quiet', { name: 'Quiet' });
      const back = nextList(store, (apps) => apps.find((app) => app.id === 'quiet')?.name === 'Quiet');
      proxy.restore();
      await back;
      expect(metrics.restores).toBe(1);
      stopWatching();
    });
  });
});
