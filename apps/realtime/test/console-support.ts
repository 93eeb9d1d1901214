import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RedisProcess } from '@herald/test-kit';
import { type RunningBin, startBin } from './run-bin.js';

/** A console token long enough for the config's rule. */
export const CONSOLE_TOKEN = 'console-token-for-tests-0123456789';

/** A temp folder holding `realtime.config.json` with this content. */
export function configDir(config: object): string {
  const cwd = mkdtempSync(join(tmpdir(), 'herald-console-'));
  writeFileSync(join(cwd, 'realtime.config.json'), JSON.stringify(config));
  return cwd;
}

/**
 * Starts the nodes `node-a`, `node-b`, … of one cluster on `redis` (one key prefix, so one cluster), each serving
 * `app` and the console with {@link CONSOLE_TOKEN}.
 */
export function startConsoleNodes(redis: RedisProcess, app: object, count = 2): Promise<RunningBin[]> {
  const nodeDir = (nodeId: string) =>
    configDir({
      applications: [app],
      scaling: {
        enabled: true,
        prefix: `console-${redis.port}:`,
        node_id: nodeId,
        server: { url: redis.url },
      },
      console: { enabled: true, token: CONSOLE_TOKEN },
    });
  return Promise.all(
    Array.from({ length: count }, (_, i) =>
      startBin([], { cwd: nodeDir(`node-${String.fromCharCode(97 + i)}`) }),
    ),
  );
}

/** A signed-in console session over HTTP: its cookie and CSRF token, as a browser would hold them. */
export interface ConsoleSession {
  readonly cookie: string;
  readonly csrf: string;
}

/** Signs in with `?token=` as a browser following the link would, and reads the session's CSRF token. */
export async function signIn(base: string, token = CONSOLE_TOKEN): Promise<ConsoleSession> {
  const answer = await fetch(`${base}?token=${encodeURIComponent(token)}`, { redirect: 'manual' });
  if (answer.status !== 303) throw new Error(`sign-in answered ${answer.status}`);
  const cookie = (answer.headers.get('set-cookie') ?? '').split(';')[0] as string;
  const session = (await (await fetch(`${base}/api/session`, { headers: { cookie } })).json()) as {
    csrf: string;
  };
  return { cookie, csrf: session.csrf };
}

/** Reads server-sent `debug` events from a console's live log until `stop`. */
export function readLiveLog(url: string, cookie: string) {
  const records: Array<Record<string, unknown>> = [];
  const abort = new AbortController();
  const opened = fetch(url, { headers: { cookie, accept: 'text/event-stream' }, signal: abort.signal }).then(
    async (response) => {
      if (!response.ok || !response.body) throw new Error(`live log answered ${response.status}`);
      const reader = response.body.getReader();
      const decoder = new TextDecoder();
      let buffer = '';
      void (async () => {
        for (;;) {
          const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
          if (done) return;
          buffer += decoder.decode(value, { stream: true });
          let end = buffer.indexOf('\n\n');
          while (end >= 0) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const data = block.split('\n').find((line) => line.startsWith('data: '));
            if (block.includes('event: debug') && data) records.push(JSON.parse(data.slice(6)));
            end = buffer.indexOf('\n\n');
          }
        }
      })();
      return response;
    },
  );
  return { records, opened, stop: () => abort.abort() };
}
