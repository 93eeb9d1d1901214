import { describe, expect, it } from 'vitest';
import { fence } from './fence.js';

/** An ordered stream, as a socket delivers frames: each item arrives after those sent before it. */
function stream() {
  const received: string[] = [];
  let queue = Promise.resolve();
  return {
    received,
    /** Delivers `item` after `delayMs`, and never before anything sent earlier. */
    send(item: string, delayMs = 0) {
      queue = queue
        .then(() => new Promise<void>((resolve) => setTimeout(resolve, delayMs)))
        .then(() => {
          received.push(item);
        });
    },
  };
}

describe('fence', () => {
  it('passes when the marker arrives and nothing unwanted came before it', async () => {
    const path = stream();
    path.send('wanted');
    await fence({
      received: () => path.received,
      unwanted: (item) => item === 'unwanted',
      sendMarker: () => path.send('marker'),
      isMarker: (item) => item === 'marker',
    });
    expect(path.received).toEqual(['wanted', 'marker']);
  });

  it('fails when the unwanted item arrives late, long after a fixed wait would have given up', async () => {
    const path = stream();
    path.send('unwanted', 400);
    const failure = fence({
      received: () => path.received,
      unwanted: (item) => item === 'unwanted',
      sendMarker: () => path.send('marker'),
      isMarker: (item) => item === 'marker',
      what: 'the unwanted frame',
    });
    await expect(failure).rejects.toThrow('fence: the unwanted frame arrived before the marker: "unwanted"');
  });

  it('fails naming the marker when the marker never arrives', async () => {
    const failure = fence({
      received: () => [],
      unwanted: () => true,
      sendMarker: () => undefined,
      isMarker: () => true,
      limitMs: 50,
    });
    await expect(failure).rejects.toThrow('waiting for the fence marker');
  });
});
