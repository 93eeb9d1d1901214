import { createServer } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import {
  dropSchema,
  freePort,
  type RedisClusterProcesses,
  type RedisProcess,
  randomSchema,
  sql,
  startProcess,
  startRedis,
  startRedisCluster,
} from '../src/index.js';
import { redisCli } from '../src/internal/redis-cli.js';

const started: Array<{ stop(): Promise<unknown> }> = [];
afterAll(async () => {
  await Promise.all(started.map((each) => each.stop()));
});

describe('freePort', () => {
  it('gives a port a server can listen on', async () => {
    const port = await freePort();
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    await new Promise((resolve) => server.close(resolve));
  });
});

describe('startRedis', () => {
  it('starts a server of its own, stops it by PID, and brings it back empty on the same port', async () => {
    const redis: RedisProcess = await startRedis();
    started.push(redis);
    expect(redis.port).not.toBe(6379);
    await redisCli(redis.port, 'SET', 'k', 'v');
    await redis.stop();
    await expect(redisCli(redis.port, 'PING')).rejects.toThrow();
    await redis.restart();
    expect(await redisCli(redis.port, 'GET', 'k')).toBe('');
  });
});

describe('startRedisCluster', () => {
  it('joins three masters into a healthy cluster and finds the master of a key', async () => {
    const cluster: RedisClusterProcesses = await startRedisCluster();
    started.push(cluster);
    expect(cluster.ports).toHaveLength(3);
    const master = await cluster.masterOf('some-key');
    expect(await redisCli(master.port, 'SET', 'some-key', 'v')).toBe('OK');
  });
});

describe('PostgreSQL helpers', () => {
  it('creates and drops a random schema', async () => {
    const schema = randomSchema('herald_kit_test');
    await sql(`CREATE SCHEMA "${schema}"`);
    const found = await sql('SELECT 1 FROM information_schema.schemata WHERE schema_name = $1', [schema]);
    expect(found.rowCount).toBe(1);
    await dropSchema(schema);
    const gone = await sql('SELECT 1 FROM information_schema.schemata WHERE schema_name = $1', [schema]);
    expect(gone.rowCount).toBe(0);
  });
});

describe('startProcess', () => {
  it('resolves with the ready line and stops the process by PID', async () => {
    const child = await startProcess(
      process.execPath,
      ['-e', 'console.log("ready on 42"); setInterval(() => {}, 1000)'],
      {
        ready: /ready on (\d+)/,
      },
    );
    expect(child.match[1]).toBe('42');
    expect(await child.stop()).toBe(null);
  });

  it('fails with the output when the process exits before it is ready', async () => {
    await expect(
      startProcess(process.execPath, ['-e', 'console.error("bad config"); process.exit(3)'], {
        ready: /ready/,
      }),
    ).rejects.toThrow(/exited with 3 before it was ready[\s\S]*bad config/);
  });
});
