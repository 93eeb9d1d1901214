import type { ServedApp } from './app-source.js';
import type { RealtimeConfig } from './config-schema.js';
import { DEMO_SECRET } from './defaults.js';

/** Said instead of the summary when a store holds no app yet. */
export const NO_APPS = '  No apps yet: add one with `realtime apps add --id <id>`.';

/**
 * The per-app summary the server prints at start and `realtime apps …` prints after each command: name, id, key,
 * and the WebSocket and REST URLs under the configured server's address. Secrets are hidden, except the demo's.
 */
export function appSummary(apps: readonly ServedApp[], config: RealtimeConfig, port: number): string[] {
  const settings = config.servers[config.default];
  const bound = settings?.host ?? '0.0.0.0';
  const host = settings?.hostname ?? (bound === '0.0.0.0' || bound === '::' ? 'localhost' : bound);
  const secure = Boolean(settings?.options.tls.local_cert);
  const base = `${host}:${port}${settings?.path ?? ''}`;
  const hidden = config.app_store.driver === 'config' ? '(hidden; see your config)' : '(hidden)';
  const lines: string[] = [];
  for (const app of apps) {
    lines.push(`  App "${app.name ?? app.id}"${app.enabled ? '' : ' (disabled)'}`);
    lines.push(`    App id:     ${app.id}`);
    lines.push(`    App key:    ${app.key}`);
    // Only the shipped demo secret is shown: real secrets never reach the terminal or the logs.
    lines.push(`    App secret: ${app.secret === DEMO_SECRET ? app.secret : hidden}`);
    lines.push(`    WebSocket:  ${secure ? 'wss' : 'ws'}://${base}/app/${app.key}`);
    lines.push(`    REST API:   ${secure ? 'https' : 'http'}://${base}/apps/${app.id}/events`);
    lines.push('');
  }
  return lines;
}

/**
 * The console's address: with the sign-in token in it when the token was made for this run (embedded defaults),
 * else without (the operator has the token from the config or the environment).
 */
export function consoleLine(config: RealtimeConfig, port: number, source: string): string | undefined {
  const settings = config.servers[config.default];
  if (!config.console.enabled || config.console.token === undefined) return undefined;
  const bound = settings?.host ?? '0.0.0.0';
  const host = settings?.hostname ?? (bound === '0.0.0.0' || bound === '::' ? 'localhost' : bound);
  const scheme = settings?.options.tls.local_cert ? 'https' : 'http';
  const url = `${scheme}://${host}:${port}${settings?.path.replace(/\/+$/, '') ?? ''}/console`;
  return source === 'embedded defaults'
    ? `Console: ${url}?token=${encodeURIComponent(config.console.token)}  (token valid until this process stops)`
    : `Console: ${url}  (sign in with console.token)`;
}

/** Said under the transport line when the server fell back to portable because no native build loads. */
export const TRANSPORT_HINT =
  '  Run `realtime transport` to see why no native build loads here and what to install or run for native speed.';

/** Portable although the config left the choice to the server: no native build loaded. */
function fellBackToPortable(config: RealtimeConfig, transportReason: string): boolean {
  // The reason is all a worker reports back, and it starts with the transport's name.
  return config.transport !== 'portable' && transportReason.startsWith('portable');
}

/** How the PostgreSQL store keeps app secrets: encrypted (with which key, by its public id) or in plaintext. */
export function secretsLine(storeKeyId: string | undefined): string {
  return storeKeyId === undefined
    ? 'Secrets: stored in plaintext in the table (set REALTIME_APP_STORE_KEY to encrypt them at rest)'
    : `Secrets: encrypted at rest (AES-256-GCM, key id ${storeKeyId})`;
}

/** Where /metrics is served and who may read it (never the token itself). */
export function metricsLine(config: RealtimeConfig, metricsPort: number | undefined, port: number): string {
  const guard = config.metrics.auth_token === undefined ? 'no token' : 'bearer token required';
  if (metricsPort !== undefined)
    return `Metrics: http://${config.metrics.host}:${metricsPort}/metrics (${guard})`;
  const path = config.servers[config.default]?.path ?? '';
  return config.metrics.auth_token === undefined
    ? `Metrics: ${path}/metrics on port ${port}, open to anyone who reaches it (set metrics.auth_token or metrics.port to restrict it)`
    : `Metrics: ${path}/metrics on port ${port} (${guard})`;
}

/** Prints the start-up banner: address, config source, transport, workers, then every app served. */
export function printBanner(
  config: RealtimeConfig,
  running: {
    readonly port: number;
    readonly transportReason: string;
    readonly apps: readonly ServedApp[];
    /** With `--workers N`: how many processes share the port, and how. */
    readonly workers?: string;
    /** The metrics port, when `/metrics` has one of its own. */
    readonly metricsPort?: number | undefined;
    /** The id of `REALTIME_APP_STORE_KEY`, when the PostgreSQL store's secrets are encrypted with it. */
    readonly storeKeyId?: string | undefined;
  },
  source: string,
): void {
  const bound = config.servers[config.default]?.host ?? '0.0.0.0';
  const store =
    config.app_store.driver === 'postgres'
      ? `Apps: PostgreSQL table ${config.app_store.postgres.schema}.${config.app_store.postgres.table} (changes apply live)`
      : undefined;
  const lines = [
    `Herald real-time server listening on ${bound}:${running.port} (config: ${source})`,
    // Said once, plainly: which transport carries the sockets and why (and, when it is the portable one, what
    // to install for native speed).
    `Transport: ${running.transportReason}`,
    ...(fellBackToPortable(config, running.transportReason) ? [TRANSPORT_HINT] : []),
    ...(running.workers ? [`Workers: ${running.workers}`] : []),
    ...(store ? [store, secretsLine(running.storeKeyId)] : []),
    metricsLine(config, running.metricsPort, running.port),
    ...[consoleLine(config, running.port, source)].filter((line) => line !== undefined),
    '',
    ...appSummary(running.apps, config, running.port),
  ];
  if (running.apps.length === 0) lines.push(NO_APPS, '');
  console.log(lines.join('\n'));
}
