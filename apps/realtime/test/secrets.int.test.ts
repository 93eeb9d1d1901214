import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dropSchema, randomSchema, sql, until } from '@herald/test-kit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type PusherClient, pusherJsClient } from './pusher-client.js';
import { pusherSdk } from './pusher-sdk.js';
import { type RunningBin, runBin, startBin } from './run-bin.js';

// App secrets encrypted at rest in the PostgreSQL app store, end to end through the built bin: the first start
// with REALTIME_APP_STORE_KEY seals a plaintext table, a start without the key or with another one is refused
// with the reason, and `realtime apps rekey` (a process of its own) moves every row to a new key while a node on
// the old key keeps serving; a node restarted on the new key serves REST signatures and channel auth.

const PG = 'postgres://postgres@127.0.0.1:5432/test';
const schema = randomSchema('herald_secrets');
const KEY_A = randomBytes(32).toString('hex');
const KEY_B = randomBytes(32).toString('base64');
const SECRET = `shop-${randomBytes(12).toString('hex')}`;
const app = { id: 'shop', key: 'shop-key', secret: SECRET };
const clients: PusherClient[] = [];

/** Every secret value as the table holds it, read with SQL. */
async function storedSecrets(): Promise<string[]> {
  const rows = await sql(`SELECT secret, previous_secrets FROM "${schema}".herald_apps ORDER BY id`, [], PG);
  return rows.rows.flatMap((row: { secret: string; previous_secrets: { secret: string }[] }) => [
    row.secret,
    ...row.previous_secrets.map((entry) => entry.secret),
  ]);
}

/** Resolves once pusher-js subscribed to a private channel, its auth signed with `secret`. */
async function privateSubscription(port: number, secret: string): Promise<void> {
  const client = pusherJsClient(port, app.key, pusherSdk({ ...app, secret }, port));
  clients.push(client);
  const channel = client.subscribe('private-orders');
  await new Promise((resolve, reject) => {
    channel.bind('pusher:subscription_succeeded', resolve);
    channel.bind('pusher:subscription_error', reject);
  });
}

const triggerStatus = (port: number) =>
  pusherSdk(app, port)
    .trigger('orders', 'placed', { ok: true })
    .then(
      (response) => response.status,
      (error: { status?: number }) => error.status ?? 0,
    );

describe('app secrets encrypted at rest (REALTIME_APP_STORE_KEY, `realtime apps rekey`)', () => {
  let cwd: string;
  let configFile: string;
  const nodes: RunningBin[] = [];
  const server = (key: string | undefined) =>
    runBin(['server', '--port', '0', '--host', '127.0.0.1'], {
      cwd,
      env: key === undefined ? {} : { REALTIME_APP_STORE_KEY: key },
    });
  const apps = (args: string[], env: NodeJS.ProcessEnv = {}) =>
    runBin(['apps', ...args, '--config', configFile], { cwd, env });

  beforeAll(() => {
    cwd = mkdtempSync(join(tmpdir(), 'herald-secrets-'));
    configFile = join(cwd, 'realtime.config.json');
    writeFileSync(
      configFile,
      JSON.stringify({ app_store: { driver: 'postgres', postgres: { url: PG, schema } } }),
    );
  });
  afterEach(() => {
    for (const client of clients.splice(0)) client.disconnect();
  });
  afterAll(async () => {
    await Promise.all(nodes.map((node) => node.stop()));
    await dropSchema(schema, PG);
  });

  it('seals a plaintext table on the first start with a key: the rows then hold no plaintext secret', async () => {
    const added = await apps(['add', '--id', app.id, '--key', app.key, '--secret', SECRET]);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).not.toContain(SECRET);
    expect(await storedSecrets()).toEqual([SECRET]);

    const node = await startBin([], { cwd, env: { REALTIME_APP_STORE_KEY: KEY_A } });
    nodes.push(node);
    const stored = await storedSecrets();
    expect(stored).toHaveLength(1);
    const keyId = /^herald:v1:([0-9a-f]{12}):/.exec(stored[0] as string)?.[1];
    expect(node.stdout).toContain(`Secrets: encrypted at rest (AES-256-GCM, key id ${keyId})`);
    expect(stored.join('\n')).not.toContain(SECRET);

    expect(await triggerStatus(node.port)).toBe(200);
    await privateSubscription(node.port, SECRET);
    const metrics = await (await fetch(`http://127.0.0.1:${node.port}/metrics`)).text();
    expect(metrics).toContain('app_id="shop"');
    for (const output of [node.stdout, node.stderr, metrics]) expect(output).not.toContain(SECRET);
  });

  it('refuses to start without the key, with another key, or with a key that is not 32 bytes, saying why', async () => {
    const [none, other, short] = await Promise.all([server(undefined), server(KEY_B), server('abc123')]);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain(
      'the app store holds encrypted app secrets, and REALTIME_APP_STORE_KEY is not set',
    );
    expect(none.stderr).toContain('app "shop": secret is encrypted');
    expect(other.code).toBe(1);
    expect(other.stderr).toContain("REALTIME_APP_STORE_KEY does not decrypt the app store's secrets");
    expect(other.stderr).toContain('authentication tag does not verify');
    expect(short.code).toBe(1);
    expect(short.stderr).toContain('REALTIME_APP_STORE_KEY: must be 32 bytes');
    for (const run of [none, other, short]) expect(`${run.stdout}${run.stderr}`).not.toContain(SECRET);
  });

  it('rekey: every row moves to the new key; the old-key node keeps serving, a node on the new key serves REST and channel auth', async () => {
    const [oldNode] = nodes as [RunningBin];
    const before = await storedSecrets();
    const rekeyed = await apps(['rekey'], {
      REALTIME_APP_STORE_KEY: KEY_A,
      REALTIME_APP_STORE_NEW_KEY: KEY_B,
    });
    expect(rekeyed.code, rekeyed.stderr).toBe(0);
    expect(rekeyed.stdout).toContain('Re-encrypted the secrets of 1 app with the new key');
    const after = await storedSecrets();
    expect(after[0]?.slice(0, 22)).not.toBe(before[0]?.slice(0, 22));
    expect(after.join('\n')).not.toContain(SECRET);

    // The node still on the old key hears the change, cannot decrypt the row, says so, and keeps the app it had.
    await until(
      () => oldNode.stdout.includes('app row cannot be decrypted: serving the version already loaded'),
      {
        what: 'the old-key node to log the row it cannot decrypt',
      },
    );
    expect(await triggerStatus(oldNode.port)).toBe(200);

    const newNode = await startBin([], { cwd, env: { REALTIME_APP_STORE_KEY: KEY_B } });
    nodes.push(newNode);
    expect(await triggerStatus(newNode.port)).toBe(200);
    await privateSubscription(newNode.port, SECRET);
    const listed = await apps(['list'], { REALTIME_APP_STORE_KEY: KEY_B });
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/App secret:\s+\(hidden\)/);
    expect(`${listed.stdout}${newNode.stdout}${oldNode.stdout}`).not.toContain(SECRET);
    // The old key no longer opens the store.
    expect((await server(KEY_A)).stderr).toContain(
      "REALTIME_APP_STORE_KEY does not decrypt the app store's secrets",
    );
  });
});
