import { describe, expect, it } from 'vitest';
import { nextStep } from './delivery-attempt.js';

const job = { attempts: 2, createdAt: 1_000 };
const context = { now: 11_000, stopped: false, maxElapsedMs: 60_000, retry: { baseMs: 1000, maxMs: 60_000 } };

describe('nextStep', () => {
  it('counts only a 2xx answer as delivered', () => {
    expect(nextStep({ status: 200 }, job, context)).toEqual({ kind: 'delivered' });
    expect(nextStep({ status: 204 }, job, context)).toEqual({ kind: 'delivered' });
    expect(nextStep({ status: 301 }, job, context).kind).toBe('retry');
    expect(nextStep({ status: 500 }, job, context).kind).toBe('retry');
  });

  it('retries a failure after a backoff that grows with the attempts', () => {
    const top = () => 0.999;
    expect(nextStep({ failure: 'refused' }, job, { ...context, random: top })).toEqual({
      kind: 'retry',
      delayMs: 3996,
    });
    expect(nextStep({ failure: 'refused' }, { ...job, attempts: 0 }, { ...context, random: top })).toEqual({
      kind: 'retry',
      delayMs: 999,
    });
  });

  it('never waits past the time left: the last retry comes when the time is up', () => {
    const late = { ...context, now: 1_000 + 59_500, random: () => 0.999 };
    expect(nextStep({ status: 503 }, job, late)).toEqual({ kind: 'retry', delayMs: 500 });
  });

  it('gives up once maxElapsedMs have passed since the job was queued', () => {
    expect(nextStep({ status: 500 }, job, { ...context, now: 61_000 })).toEqual({
      kind: 'give_up',
      elapsedMs: 60_000,
    });
  });

  it('puts back a request cut short by closing, rather than counting it as a failure', () => {
    const closing = { ...context, stopped: true };
    expect(nextStep({ failure: 'dispatcher closed' }, job, closing)).toEqual({ kind: 'put_back' });
    expect(nextStep({ failure: 'dispatcher closed' }, job, { ...closing, now: 100_000 })).toEqual({
      kind: 'put_back',
    });
    expect(nextStep({ status: 500 }, job, closing).kind).toBe('retry');
  });
});
