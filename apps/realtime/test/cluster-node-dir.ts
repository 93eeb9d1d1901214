import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Writes the config of one cluster node into a new folder and returns it: `config` plus scaling through the given
 * redis-server under `prefix`, with heartbeats fast enough for a test to see a dead node reaped.
 */
export function clusterNodeDir(options: {
  readonly prefix: string;
  readonly nodeId: string;
  readonly redisPort: number;
  readonly config: Record<string, unknown>;
}): string {
  const cwd = mkdtempSync(join(tmpdir(), `herald-${options.nodeId}-`));
  const config = {
    ...options.config,
    scaling: {
      enabled: true,
      prefix: options.prefix,
      node_id: options.nodeId,
      heartbeat_ms: 200,
      dead_after_ms: 1000,
      server: { url: `redis://127.0.0.1:${options.redisPort}` },
    },
  };
  writeFileSync(join(cwd, 'realtime.config.json'), JSON.stringify(config));
  return cwd;
}
