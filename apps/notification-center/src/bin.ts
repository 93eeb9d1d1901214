#!/usr/bin/env node
import { resolve } from 'node:path';
import { createNotificationStore, type NotificationLogger } from '@herald/notifications';
import { serve } from '@hono/node-server';
import { createNotificationCenter } from './center.js';
import { configFromEnv } from './config.js';

const logger: NotificationLogger = {
  debug: () => {},
  info: (message, fields) => console.log(`info: ${message}`, fields ?? {}),
  warn: (message, fields) => console.warn(`warn: ${message}`, fields ?? {}),
  error: (message, fields) => console.error(`error: ${message}`, fields ?? {}),
};

async function main(command: string | undefined): Promise<number> {
  const loaded = configFromEnv(process.env);
  if (!loaded.ok) {
    console.error(`notification-center: bad configuration\n  ${loaded.problems.join('\n  ')}`);
    return 1;
  }
  const { config } = loaded;
  if (command === 'migrate') {
    const store = await createNotificationStore({ ...config.database, migrate: false, logger });
    const applied = await store.migrate();
    await store.close();
    console.log(applied.length > 0 ? `applied: ${applied.join(', ')}` : 'nothing to migrate');
    return 0;
  }
  if (command !== undefined && command !== 'serve') {
    console.error('usage: notification-center [serve|migrate]');
    return 2;
  }
  const where =
    'url' in config.database
      ? `PostgreSQL (schema ${config.database.schema})`
      : `PGlite in ${resolve(config.database.dataDir)}`;
  // Said before opening, so a store that cannot open is reported with the place it was looked for.
  console.log(`notification-center: opening the store: ${where}`);
  const center = await createNotificationCenter(config, logger);
  const server = serve({ fetch: center.app.fetch, hostname: config.host, port: config.port }, (info) => {
    console.log(`notification-center listening on http://${config.host}:${info.port}`);
    console.log(`  store: ${where}; channels: ${center.notifier.channelNames.join(', ')}`);
    console.log(`  demo: http://${config.host}:${info.port}/login`);
  });
  const stop = () => {
    server.close(() => {
      void center.close().then(() => process.exit(0));
    });
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  return -1;
}

main(process.argv[2]).then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
