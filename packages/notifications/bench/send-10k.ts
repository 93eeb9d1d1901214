// Sends one notification to 10,000 notifiables through the database channel, then times the list queries of
// one user, on embedded PGlite (temp dir) and on PostgreSQL (DATABASE_URL or the local test database).
// Run: pnpm --filter @herald/notifications bench
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import {
  createDatabaseChannel,
  createNotificationStore,
  createNotifier,
  type Notification,
  type NotificationStore,
} from '../src/index.js';

const COUNT = 10_000;
const HEAVY_USER_ROWS = 500;
const RUNS = 50;
const url = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';

const announcement: Notification = {
  type: 'Announcement',
  via: () => ['database'],
  toDatabase: (n) => ({ title: 'Maintenance tonight', message: `Hello user ${n.id}` }),
};

function print(line: string): void {
  process.stdout.write(`${line}\n`);
}

async function median(task: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const start = performance.now();
    await task();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)] as number;
}

async function measure(label: string, store: NotificationStore): Promise<void> {
  const notifier = createNotifier({ channels: { database: createDatabaseChannel({ store }) } });
  const users = Array.from({ length: COUNT }, (_, i) => ({ type: 'User', id: i }));
  const start = performance.now();
  const report = await notifier.send(users, announcement);
  const sendMs = performance.now() - start;
  if (!report.ok) throw new Error(`send failed: ${report.failures[0]?.error.message}`);
  // One heavy user on top, so the list query has pages to skip through.
  const heavy = { type: 'User', id: 'heavy' };
  await store.insertMany(
    Array.from({ length: HEAVY_USER_ROWS }, (_, i) => ({
      id: randomUUID(),
      type: 'Announcement',
      notifiable_type: 'User',
      notifiable_id: 'heavy',
      data: { title: `#${i}`, message: 'm' },
      created_at: new Date(Date.UTC(2026, 0, 1) + i * 1000),
    })),
  );
  const stored = await store.count();
  const firstPage = await median(() => store.list(heavy, { page: 1, limit: 20 }));
  const lastPage = await median(() => store.list(heavy, { page: 25, limit: 20 }));
  const oneRow = await median(() => store.list({ type: 'User', id: '4242' }, { page: 1, limit: 20 }));
  const unread = await median(() => store.list(heavy, { page: 1, limit: 20 }, { status: 'unread' }));
  print(
    `${label}: send to ${COUNT} notifiables ${sendMs.toFixed(0)} ms (${Math.round((COUNT / sendMs) * 1000)}/s), ${stored} rows stored; ` +
      `list (median of ${RUNS}, with counts): user with ${HEAVY_USER_ROWS} rows page 1 ${firstPage.toFixed(2)} ms, page 25 ${lastPage.toFixed(2)} ms, ` +
      `unread page 1 ${unread.toFixed(2)} ms; user with 1 row ${oneRow.toFixed(2)} ms`,
  );
}

const dataDir = await mkdtemp(join(tmpdir(), 'herald-bench-'));
const pglite = await createNotificationStore({ dataDir });
await measure('PGlite', pglite);
await pglite.close();
await rm(dataDir, { recursive: true, force: true });

const schema = `herald_notifications_bench_${process.pid}`;
const postgres = await createNotificationStore({ url, schema });
try {
  await measure('PostgreSQL', postgres);
} finally {
  await postgres.close();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(`drop schema if exists "${schema}" cascade`);
  await client.end();
}
