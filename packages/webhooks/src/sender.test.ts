import { verifyWebhook } from '@herald/protocol-core';
import { describe, expect, it } from 'vitest';
import type { WebhookJob } from './queue.js';
import { createSender, signedHeaders } from './sender.js';

const app = { key: 'app-key', secret: 'app-secret' };
const job: WebhookJob = {
  lane: 'lane',
  appId: 'app-1',
  url: 'https://example.com/hook',
  headers: { Authorization: 'Bearer token' },
  body: '{"time_ms":1,"events":[]}',
  events: 0,
  createdAt: 0,
};

describe('signedHeaders', () => {
  it('signs the exact body with the app secret, as a receiver checks it', () => {
    const headers = signedHeaders({}, app, job.body);
    expect(headers['X-Pusher-Key']).toBe('app-key');
    expect(headers['Content-Type']).toBe('application/json');
    expect(verifyWebhook('app-secret', job.body, headers['X-Pusher-Signature']!)).toBe(true);
    expect(verifyWebhook('other-secret', job.body, headers['X-Pusher-Signature']!)).toBe(false);
  });

  it("adds the webhook's own headers, never in place of the ones the receiver verifies, whatever their case", () => {
    const headers = signedHeaders(
      {
        Authorization: 'Bearer token',
        'x-pusher-signature': 'forged',
        'X-PUSHER-KEY': 'forged',
        'content-type': 'text/plain',
      },
      app,
      job.body,
    );
    expect(Object.keys(headers).sort()).toEqual([
      'Authorization',
      'Content-Type',
      'X-Pusher-Key',
      'X-Pusher-Signature',
    ]);
    expect(headers.Authorization).toBe('Bearer token');
    expect(headers['X-Pusher-Key']).toBe('app-key');
  });
});

/** A fetch that never answers until its signal aborts, as a hung receiver. */
const hanging = (_url: string, init: RequestInit) =>
  new Promise<Response>((_resolve, reject) => {
    init.signal?.addEventListener('abort', () => reject(init.signal?.reason));
  });

describe('createSender', () => {
  it('POSTs the body with the signed headers, without following redirects, and answers the status', async () => {
    const seen: RequestInit[] = [];
    const send = createSender({
      fetch: async (_url, init) => {
        seen.push(init);
        return new Response(null, { status: 302 });
      },
      requestTimeoutMs: 1000,
      signal: new AbortController().signal,
    });
    expect(await send(job, app)).toEqual({ status: 302 });
    expect(seen[0]).toMatchObject({ method: 'POST', body: job.body, redirect: 'manual' });
  });

  it('counts a receiver that does not answer in time as a failure', async () => {
    const send = createSender({ fetch: hanging, requestTimeoutMs: 20, signal: new AbortController().signal });
    expect(await send(job, app)).toEqual({ failure: 'no answer within 20 ms' });
  });

  it('cuts a request short when the dispatcher stops', async () => {
    const stop = new AbortController();
    const send = createSender({ fetch: hanging, requestTimeoutMs: 10_000, signal: stop.signal });
    const sending = send(job, app);
    stop.abort();
    expect(await sending).toEqual({ failure: 'dispatcher closed' });
  });
});
