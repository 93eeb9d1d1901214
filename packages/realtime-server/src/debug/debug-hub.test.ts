import type { ClusterMessage } from '@herald/protocol-core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { silentLogger } from '../logger.js';
import type { DebugRecord } from './debug-events.js';
import { createDebugHub, LEASE_MS } from './debug-hub.js';

const opened = { kind: 'connection_opened', socketId: '1.1' } as const;

function hubWithWire() {
  const sent: ClusterMessage[] = [];
  const hub = createDebugHub({
    nodeId: () => 'node-a',
    broadcast: (m) => sent.push(m),
    logger: silentLogger,
  });
  return { hub, sent };
}

describe('createDebugHub', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('is inactive and sends nothing anywhere while nobody watches', () => {
    const { hub, sent } = hubWithWire();
    expect(hub.active).toBe(false);
    hub.emit('app', opened);
    hub.report('app', opened);
    expect(sent).toEqual([]);
  });

  it('hands a watched app its records with time and node, and only that app', () => {
    const { hub } = hubWithWire();
    const seen: DebugRecord[] = [];
    const stop = hub.subscribe('app', (record) => seen.push(record));
    hub.emit('app', opened);
    hub.emit('other', opened);
    expect(seen).toEqual([{ ...opened, appId: 'app', node: 'node-a', at: expect.any(Number) }]);
    stop();
    expect(hub.active).toBe(false);
    hub.emit('app', opened);
    expect(seen).toHaveLength(1);
    hub.close();
  });

  it('tells the other nodes when it starts watching, and sends records to a node that watches until its lease lapses', () => {
    vi.useFakeTimers();
    const { hub, sent } = hubWithWire();
    const stop = hub.subscribe('app', () => undefined);
    expect(sent).toEqual([{ type: 'debug_watch', appId: 'app' }]);
    stop();
    sent.length = 0;
    hub.watchedElsewhere('app');
    expect(hub.active).toBe(true);
    hub.emit('app', opened);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ type: 'debug', appId: 'app' });
    vi.advanceTimersByTime(LEASE_MS + 1);
    hub.emit('app', opened);
    expect(sent).toHaveLength(1);
    expect(hub.active).toBe(false);
  });

  it('delivers a record received from another node to the local watchers only', () => {
    const { hub, sent } = hubWithWire();
    const seen: DebugRecord[] = [];
    hub.subscribe('app', (record) => seen.push(record));
    sent.length = 0;
    hub.receive('app', JSON.stringify({ ...opened, appId: 'app', node: 'node-b', at: 1 }));
    hub.receive('app', 'not json');
    expect(seen.map((record) => record.node)).toEqual(['node-b']);
    expect(sent).toEqual([]);
    hub.close();
  });
});
