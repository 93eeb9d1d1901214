import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type Batch, createBatcher } from './batcher.js';
import { webhookEvent } from './events.js';
import { compileTargets } from './internal/targets.js';
import type { BatchingOptions, WebhookApp } from './options.js';

const appWith = (batching?: BatchingOptions): WebhookApp => ({
  key: 'key',
  secret: 'secret',
  webhooks: [
    { url: 'https://a.example/hook', event_types: ['channel_occupied'] },
    { url: 'https://b.example/hook', event_types: ['channel_occupied'] },
  ],
  ...(batching ? { batching } : {}),
});

function setUp(defaults?: BatchingOptions) {
  const batches: Batch[] = [];
  const batcher = createBatcher({ defaults, onBatch: (batch) => batches.push(batch) });
  return { batcher, batches };
}

const [first, second] = compileTargets('app-1', appWith().webhooks);
const occupied = (channel: string) => webhookEvent.channelOccupied(channel);

describe('createBatcher', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('gathers the events of one target within the window into one batch, opened when the first arrived', () => {
    const { batcher, batches } = setUp({ windowMs: 50 });
    const app = appWith();
    const openedAt = Date.now();
    batcher.add('app-1', app, first!, occupied('a'));
    vi.advanceTimersByTime(30);
    batcher.add('app-1', app, first!, occupied('b'));
    expect(batches).toEqual([]);
    vi.advanceTimersByTime(20);
    expect(batches).toHaveLength(1);
    expect(batches[0]).toMatchObject({ appId: 'app-1', openedAt, events: [occupied('a'), occupied('b')] });
  });

  it('keeps a batch per target', () => {
    const { batcher, batches } = setUp();
    const app = appWith();
    batcher.add('app-1', app, first!, occupied('a'));
    batcher.add('app-1', app, second!, occupied('b'));
    vi.advanceTimersByTime(50);
    expect(batches.map((batch) => [batch.target.url, batch.events.length])).toEqual([
      ['https://a.example/hook', 1],
      ['https://b.example/hook', 1],
    ]);
  });

  it('hands a batch over at once when it is full, and opens the next one', () => {
    const { batcher, batches } = setUp({ maxEvents: 2 });
    const app = appWith();
    for (const channel of ['a', 'b', 'c']) batcher.add('app-1', app, first!, occupied(channel));
    expect(batches.map((batch) => batch.events.length)).toEqual([2]);
    vi.advanceTimersByTime(50);
    expect(batches.map((batch) => batch.events.length)).toEqual([2, 1]);
  });

  it("lets an app's own batching override the dispatcher's: off, every event leaves on its own at once", () => {
    const { batcher, batches } = setUp({ windowMs: 1000 });
    const app = appWith({ enabled: false });
    batcher.add('app-1', app, first!, occupied('a'));
    batcher.add('app-1', app, first!, occupied('b'));
    expect(batches.map((batch) => batch.events)).toEqual([[occupied('a')], [occupied('b')]]);
  });

  it('hands every open batch over on flushAll, and nothing again when its window ends', () => {
    const { batcher, batches } = setUp();
    const app = appWith();
    batcher.add('app-1', app, first!, occupied('a'));
    batcher.add('app-1', app, second!, occupied('b'));
    batcher.flushAll();
    expect(batches).toHaveLength(2);
    vi.advanceTimersByTime(1000);
    expect(batches).toHaveLength(2);
  });
});
