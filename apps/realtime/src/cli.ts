import { parseArgs } from 'node:util';
import { createSecretCipher } from '@herald/app-store-postgres/key';
import { appsCommand } from './apps-command.js';
import { printBanner } from './banner.js';
import { registerServer, runningServers } from './control.js';
import { loadConfig } from './load-config.js';
import { createLogger, scoped } from './logger.js';
import { requestClusterRestart, startRealtime } from './start.js';
import { collectStartupGarbage, releaseYoungGeneration } from './startup-heap.js';
import { transportCommand } from './transport-command.js';
import { onParentStop, reportReady, runWorkers, workerConfig, workerRole } from './workers.js';

const USAGE = `Usage: realtime <command> [options]

Commands:
  server            Start the real-time server
    --host <host>     Address to bind (overrides the config)
    --port <port>     Port to bind (overrides the config; 0 picks a free port)
    --config <file>   Config file (default: realtime.config.{json,js,mjs,ts} in the working directory)
    --debug           Log at debug level
    --workers <n>     Processes sharing the port, each a cluster node (needs scaling.enabled; default 1)
  restart_server    Close every socket with 4200 and start fresh with the config re-read, on every
                    node of the cluster (through Redis) or on every server running on this machine
    --config <file>   Config file (to find the Redis of the cluster)
  apps <action>     Manage the apps of a PostgreSQL app store (app_store.driver "postgres"); every
                    running node applies the change within a second, without a restart
    list                          Print every app
    add --id <id> [--key <key>] [--secret <secret>] [--name <name>] [--set <key>=<value>]...
                                  Add an app (key and secret generated when not given)
    update <id> --set <key>=<value>...
                                  Change config keys of an app (value JSON or text; null resets)
    disable <id>                  Disable an app: its sockets close with 4003
    enable <id>                   Enable it again
    rotate-secret <id> [--grace <seconds>] [--secret <secret>]
                                  New secret; the old one stays valid for the grace period
                                  (default app_store.rotate_grace_seconds, 300)
    rekey                         Re-encrypt every app secret from REALTIME_APP_STORE_KEY (or from
                                  plaintext) to REALTIME_APP_STORE_NEW_KEY, in one transaction
    --config <file>               Config file (to find the app store)
  transport         Check which native uWebSockets.js build loads on this machine, why the others do not,
                    and what to install or run for native speed
    --json            Print the check as JSON
    --expect <name>   Exit 1 unless the server would run this transport here (uws or portable)
  help              Show this help`;

function fail(lines: readonly string[], source: string): never {
  console.error(`realtime: invalid configuration (${source}):`);
  for (const line of lines) console.error(`  - ${line}`);
  process.exit(1);
}

/** The public id of the app store key (for the banner), when one is given. */
function storeKeyIdOf(key: Uint8Array | undefined): string | undefined {
  return key === undefined ? undefined : createSecretCipher(key).keyId;
}

function bannerOf(running: Awaited<ReturnType<typeof startRealtime>>, key: Uint8Array | undefined) {
  return {
    storeKeyId: storeKeyIdOf(key),
    port: running.port,
    transportReason: running.server.transport.reason,
    apps: running.apps(),
    metricsPort: running.metricsPort,
  };
}

async function server(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      host: { type: 'string' },
      port: { type: 'string' },
      config: { type: 'string' },
      debug: { type: 'boolean' },
      workers: { type: 'string' },
    },
    strict: true,
  });
  let port: number | undefined;
  if (values.port !== undefined) {
    port = Number(values.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535)
      fail([`--port: "${values.port}" is not a port number`], 'command line');
  }
  let workers: number | undefined;
  if (values.workers !== undefined) {
    workers = Number(values.workers);
    if (!Number.isInteger(workers) || workers < 1)
      fail([`--workers: "${values.workers}" is not a whole number of processes (1 or more)`], 'command line');
  }
  const cli = { host: values.host, port, config: values.config, debug: values.debug, workers };
  const loaded = await loadConfig({ cwd: process.cwd(), env: process.env, cli });
  if (!loaded.ok) fail(loaded.problems, loaded.source);
  const role = workerRole();
  const config = role ? workerConfig(loaded.config, role) : loaded.config;
  const { logger: root, flush } = createLogger({
    enabled: config.logging.enabled,
    debug: loaded.debug,
    pretty: Boolean(process.stdout.isTTY),
    scopes: config.logging.scopes,
    logFile: config.logging.log_file,
    logPath: config.logging.log_path,
  });
  const logger = scoped(root, 'command.server');
  if (!role && (config.servers[config.default]?.workers ?? 1) > 1) {
    // Every worker serves the console with the same token: one made for this run is handed down to them.
    if (loaded.source === 'embedded defaults' && config.console.token !== undefined) {
      process.env.REALTIME_CONSOLE_TOKEN ??= config.console.token;
    }
    await runWorkers({
      config,
      argv,
      logger,
      started: (ready) => {
        printBanner(
          config,
          { ...ready, transportReason: ready.transport, storeKeyId: storeKeyIdOf(loaded.storeKeys.key) },
          loaded.source,
        );
        const unregister = registerServer({ pid: process.pid, port: ready.port, cwd: process.cwd() });
        process.once('exit', unregister);
      },
      exit: (code) => {
        flush();
        process.exit(code);
      },
    });
    return;
  }
  // Signals are handled from the start, so a SIGTERM during start-up still shuts down cleanly.
  let running: Awaited<ReturnType<typeof startRealtime>> | undefined;
  let unregister = () => {};
  let stopping = false;
  let restarting = false;
  // A worker whose parent asked it to stop: Ctrl-C signals the whole process group, so the terminal's own SIGINT
  // may reach the worker after the parent's request, and that one is the same request, not a second one.
  let parentAsked = false;
  const stop = (signal: string) => {
    if (stopping && parentAsked && (signal === 'SIGINT' || signal === 'SIGTERM')) {
      parentAsked = false;
      logger.debug('signal after the parent already asked to stop: draining on', { signal });
      return;
    }
    if (stopping) {
      // A second Ctrl-C (or SIGTERM) during the drain: stop waiting.
      logger.warn('stopping now', { signal });
      flush();
      process.exit(1);
    }
    stopping = true;
    logger.info('shutting down', { signal });
    unregister();
    void (running?.shutdown() ?? Promise.resolve()).then(() => {
      flush();
      // Give the close frames a moment to leave before the process ends.
      setTimeout(() => process.exit(0), 200).unref();
    });
  };

  // A restart closes every socket with 4200 (clients reconnect at once) and starts fresh with the config re-read;
  // a config that no longer loads keeps the running server as it is.
  const restart = async () => {
    if (stopping || restarting || !running) return;
    restarting = true;
    try {
      const reloaded = await loadConfig({ cwd: process.cwd(), env: process.env, cli });
      if (!reloaded.ok) {
        logger.error('restart refused: the config does not load', { problems: reloaded.problems });
        return;
      }
      logger.info('restarting', { scope: 'socket.server.restart', source: reloaded.source });
      const pending = running.reload(reloaded.config);
      for (const warning of pending) logger.warn(warning, { scope: 'socket.server.restart' });
      if (!role) printBanner(reloaded.config, bannerOf(running, loaded.storeKeys.key), reloaded.source);
    } catch (error) {
      logger.error('restart failed', { error });
      process.exit(1);
    } finally {
      restarting = false;
    }
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGHUP', () => void restart());
  if (role)
    onParentStop(
      (reason) => {
        if (stopping) return;
        parentAsked = true;
        stop(reason);
      },
      () => {
        flush();
        process.exit(1);
      },
    );

  try {
    running = await startRealtime(config, root, {
      storeKey: loaded.storeKeys.key,
      onRestart: () => void restart(),
      beforeListen: () => {
        collectStartupGarbage();
        releaseYoungGeneration();
      },
      onAppsChanged: (_apps, changes) => {
        const changed = Object.entries(changes).filter(([, ids]) => ids.length > 0);
        if (changed.length > 0) scoped(root, 'app_store').info('apps changed', Object.fromEntries(changed));
      },
    });
  } catch (error) {
    console.error(`realtime: ${(error as Error).message}`);
    process.exit(1);
  }
  if (stopping) {
    await running.close();
    return;
  }
  if (role) {
    // The parent prints the banner and registers for `realtime restart_server` (it passes SIGHUP on).
    reportReady({
      port: running.port,
      transport: running.server.transport.reason,
      apps: running.apps(),
      metricsPort: running.metricsPort,
    });
  } else {
    unregister = registerServer({ pid: process.pid, port: running.port, cwd: process.cwd() });
    printBanner(config, bannerOf(running, loaded.storeKeys.key), loaded.source);
  }
  scoped(root, 'command.server.start').info('server started', {
    ...(role ? { worker: role.index, nodeId: role.nodeId } : {}),
    port: running.port,
    transport: running.server.transport.name,
    apps: running.apps().map((app) => app.id),
    source: loaded.source,
  });
}

async function restartServer(argv: string[]): Promise<void> {
  const { values } = parseArgs({ args: argv, options: { config: { type: 'string' } }, strict: true });
  const loaded = await loadConfig({ cwd: process.cwd(), env: process.env, cli: { config: values.config } });
  if (!loaded.ok) fail(loaded.problems, loaded.source);
  if (loaded.config.scaling.enabled) {
    await requestClusterRestart(loaded.config);
    console.log('Asked every node of the cluster to restart (through Redis).');
    return;
  }
  const servers = runningServers();
  if (servers.length === 0) {
    console.error('realtime: no running Herald server found on this machine');
    process.exit(1);
  }
  for (const entry of servers) {
    process.kill(entry.pid, 'SIGHUP');
    console.log(`Asked the server on port ${entry.port} (pid ${entry.pid}) to restart.`);
  }
}

async function main(): Promise<void> {
  const [command, ...rest] = process.argv.slice(2);
  switch (command) {
    case 'server':
      return server(rest);
    case 'restart_server':
      return restartServer(rest);
    case 'apps':
      return appsCommand(rest, fail);
    case 'transport':
      return transportCommand(rest, fail);
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      console.log(USAGE);
      return;
    default:
      console.error(`realtime: unknown command "${command}"\n\n${USAGE}`);
      process.exit(1);
  }
}

main().catch((error: unknown) => {
  console.error(`realtime: ${(error as Error).message}`);
  process.exit(1);
});
