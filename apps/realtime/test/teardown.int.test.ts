import { randomBytes } from 'node:crypto';
import { silentLogger } from '@herald/realtime-server';
import { POSTGRES_URL, randomSchema, until } from '@herald/test-kit';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configSchema } from '../src/config-schema.js';
import { startRealtime } from '../src/start.js';

// A server serving apps from the machine's PostgreSQL holds connections to it (the LISTEN connection among them),
// each named here by its application_name, as a database operator would see them in pg_stat_activity.

const PG = POSTGRES_URL;
const schema = randomSchema('herald_teardown');
const admin = new pg.Client({ connectionString: PG });

/** Connections open under this application_name right now. */
async function connections(name: string): Promise<number> {
  const { rows } = await admin.query<{ count: string }>(
    'SELECT count(*) FROM pg_stat_activity WHERE application_name = $1',
    [name],
  );
  return Number(rows[0]?.count);
}

/** Starts a server on the store, its connections named `name`. */
function boot(name: string) {
  const config = configSchema.parse({
    transport: process.env.REALTIME_TRANSPORT ?? 'auto',
    servers: { herald: { host: '127.0.0.1', port: 0, shutdown_grace_period: 0 } },
    app_store: { driver: 'postgres', postgres: { url: `${PG}?application_name=${name}`, schema } },
  });
  return startRealtime(config, silentLogger);
}

describe('stopping a server that serves apps from PostgreSQL', () => {
  beforeAll(() => admin.connect());
  afterAll(async () => {
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin.end();
  });

  for (const stop of ['shutdown', 'close'] as const) {
    it(`closes every connection to the app store on ${stop}`, async () => {
      const name = `herald_${stop}_${randomBytes(4).toString('hex')}`;
      const running = await boot(name);
      await until(async () => (await connections(name)) > 0, 'the store to connect');
      await running[stop]();
      // A backend leaves pg_stat_activity a moment after its client hung up.
      await until(async () => (await connections(name)) === 0, `no ${name} connection left`);
      expect(await connections(name)).toBe(0);
    });
  }
});
