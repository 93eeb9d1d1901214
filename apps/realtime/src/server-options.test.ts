import { ServerMetrics, silentLogger } from '@herald/realtime-server';
import { describe, expect, it } from 'vitest';
import { toRealtimeApp } from './app-options.js';
import { configSchema, formatIssues } from './config-schema.js';
import { serverOptions } from './server-options.js';

const app = { id: 'a', key: 'k', secret: 's' };

function problemsOf(input: unknown): string {
  const parsed = configSchema.safeParse(input);
  return parsed.success ? '' : formatIssues(parsed.error.issues).join('\n');
}

function optionsOf(input: Record<string, unknown>) {
  const config = configSchema.parse({ applications: [app], ...input });
  return serverOptions(config, config.servers.herald!, {
    apps: [],
    metrics: new ServerMetrics({ processMetrics: false }),
    http: { handler: () => new Response(), fast: () => undefined },
    logger: silentLogger,
  });
}

describe('servers.<name> abuse limits', () => {
  it('leaves per-address limits off and closes slow consumers over 1 MiB by default', () => {
    expect(optionsOf({})).toMatchObject({
      maxConnectionsPerIp: 0,
      maxUpgradesPerIpPerSecond: 0,
      trustedProxies: [],
      maxBufferedBytesPerSocket: 1024 * 1024,
      slowConsumer: 'close',
    });
  });

  it('passes each key into the server options', () => {
    const options = optionsOf({
      servers: {
        herald: {
          max_connections_per_ip: 50,
          max_upgrades_per_ip_per_second: 2.5,
          trusted_proxies: ['10.0.0.0/8', 'fd00::/8', '::ffff:127.0.0.1'],
          max_buffered_bytes_per_socket: 4_194_304,
          slow_consumer: 'drop',
        },
      },
    });
    expect(options).toMatchObject({
      maxConnectionsPerIp: 50,
      maxUpgradesPerIpPerSecond: 2.5,
      trustedProxies: ['10.0.0.0/8', 'fd00::/8', '::ffff:127.0.0.1'],
      maxBufferedBytesPerSocket: 4_194_304,
      slowConsumer: 'drop',
    });
  });

  it('names the key path of every bad value', () => {
    const problems = problemsOf({
      applications: [app],
      servers: {
        edge: {
          max_connections_per_ip: -1,
          max_upgrades_per_ip_per_second: 'fast',
          trusted_proxies: ['10.0.0.0/8', 'ingress.local'],
          max_buffered_bytes_per_socket: 10,
          slow_consumer: 'block',
        },
      },
      default: 'edge',
    });
    expect(problems).toContain('servers.edge.max_connections_per_ip');
    expect(problems).toContain('servers.edge.max_upgrades_per_ip_per_second');
    expect(problems).toMatch(/servers\.edge\.trusted_proxies\.1: "ingress\.local" is not an IP address/);
    expect(problems).toContain('servers.edge.max_buffered_bytes_per_socket');
    expect(problems).toMatch(/servers\.edge\.slow_consumer: must be "close" or "drop"/);
  });
});

describe('applications[].authorized_connections', () => {
  it('maps the setting with its 30 s default, and leaves it off when absent', () => {
    const config = configSchema.parse({
      applications: [
        { ...app, authorized_connections: { enabled: true } },
        { ...app, id: 'b', key: 'kb' },
      ],
    });
    const [on, absent] = config.applications.map((each) => toRealtimeApp(each, config.rate_limiter));
    expect(on?.authorizedConnections).toEqual({ enabled: true, timeoutSeconds: 30 });
    expect(absent?.authorizedConnections).toBeUndefined();
  });

  it('names the key path of a bad setting', () => {
    const problems = problemsOf({
      applications: [{ ...app, authorized_connections: { enabled: 1, timeout_seconds: 0, grace: 2 } }],
    });
    expect(problems).toContain('applications.0.authorized_connections.enabled');
    expect(problems).toContain('applications.0.authorized_connections.timeout_seconds');
    expect(problems).toContain('grace');
  });
});
