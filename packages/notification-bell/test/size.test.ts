import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build, type Rolldown } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The size budget, checked on the built files (`pnpm build` first; the test task depends on it): what a page
// downloads first must stay small, and must never carry pusher-js unless broadcasting asks for it. The figures
// are the README's; raise a budget only with a reason, and update the README with it.

const DIST = fileURLToPath(new URL('../dist/', import.meta.url));

/** Budgets in bytes, gzip level 9. */
const BUDGET = {
  // dist/index.js, alpinejs and pusher-js left to the host's bundler (unminified: the host minifies). Raised from
  // 18 KB for the inbox states (tabs with counts, archive, snooze, seen, collapse, cross-tab sync): 17.3 → 21.2 KB,
  // and for the browser-notifications control (its subscribe step is a chunk of its own): 21.2 → 22.5 KB, and for
  // turning it off and the device list (their calls are in that chunk too): 22.5 → 23.4 KB.
  esModule: 24 * 1024,
  // dist/notification-bell.js, Alpine included; raised from 35 KB with the inbox states and the push control (35.8 KB).
  standalone: 37 * 1024,
  standaloneLive: 24 * 1024, // dist/standalone/wsproto.js, pusher-js included
  css: 4 * 1024,
  hostInitial: 38 * 1024, // a host's first chunk: the bell with Alpine, bundled by Vite
} as const;

// A string found in pusher-js's own code (its ping event), never in the bell's.
const PUSHER_MARK = 'pusher:ping';

const gzip = (text: string) => gzipSync(text, { level: 9 }).length;
const read = (file: string) => readFile(join(DIST, file), 'utf8');

describe('the bell’s size budget', () => {
  beforeAll(() => {
    if (!existsSync(join(DIST, 'index.js')))
      throw new Error('build @herald/notification-bell first (pnpm build)');
  });

  it('keeps each shipped file within its gzip budget', async () => {
    const sizes = {
      esModule: gzip(await read('index.js')),
      standalone: gzip(await read('notification-bell.js')),
      standaloneLive: gzip(await read('standalone/wsproto.js')),
      css: gzip(await read('notification-bell.css')),
    };
    for (const [name, size] of Object.entries(sizes)) {
      expect({ name, size, withinBudget: size <= BUDGET[name as keyof typeof sizes] }).toEqual({
        name,
        size,
        withinBudget: true,
      });
    }
  });

  it('leaves pusher-js out of what loads first, in both builds', async () => {
    expect(await read('index.js')).not.toContain(PUSHER_MARK);
    expect(await read('index.js')).not.toMatch(/from\s*["']pusher-js["']/);
    expect(await read('notification-bell.js')).not.toContain(PUSHER_MARK);
    expect(await read('standalone/wsproto.js')).toContain(PUSHER_MARK);
    expect(await read('chunks/wsproto.js')).toMatch(/from\s*["']pusher-js["']/);
  });

  describe('bundled by a host with Vite', () => {
    let dir: string;
    let chunks: Rolldown.OutputChunk[];

    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'herald-bell-size-'));
      const entry = join(dir, 'main.js');
      await writeFile(
        entry,
        `import Alpine from ${JSON.stringify(join(DIST, 'alpine.js'))};
import { mountNotificationBells, notificationBellPlugin } from ${JSON.stringify(join(DIST, 'index.js'))};
Alpine.plugin(notificationBellPlugin);
mountNotificationBells(document);
Alpine.start();
`,
      );
      const result = await build({
        root: dir,
        configFile: false,
        logLevel: 'silent',
        build: { write: false, minify: true, rolldownOptions: { input: entry } },
      });
      const outputs = (Array.isArray(result) ? result : [result]) as Rolldown.RolldownOutput[];
      chunks = outputs.flatMap((output) =>
        output.output.filter((part): part is Rolldown.OutputChunk => part.type === 'chunk'),
      );
    }, 120_000);

    afterAll(async () => {
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    it('puts pusher-js in a chunk of its own, loaded on demand, and keeps the first chunk within budget', () => {
      const [first, ...others] = [...chunks].sort((a, b) => Number(b.isEntry) - Number(a.isEntry));
      expect(first?.isEntry).toBe(true);
      expect(first?.code).not.toContain(PUSHER_MARK);
      expect(gzip(first?.code ?? '')).toBeLessThanOrEqual(BUDGET.hostInitial);
      const live = others.filter((chunk) => chunk.code.includes(PUSHER_MARK));
      expect(live).toHaveLength(1);
      expect(live[0]?.isDynamicEntry).toBe(true);
    });
  });
});
