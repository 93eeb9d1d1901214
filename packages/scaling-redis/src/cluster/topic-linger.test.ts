import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createTopicLinger, type TopicNeed } from './topic-linger.js';

describe('createTopicLinger', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  function linger(needs: Map<string, TopicNeed>) {
    const dropped: string[][] = [];
    const topics = createTopicLinger({
      delayMs: 100,
      need: (topic) => needs.get(topic) ?? 'unneeded',
      drop: (due) => dropped.push(due),
    });
    return { topics, dropped };
  }

  it('drops topics due together in one call, once the linger is over', () => {
    const { topics, dropped } = linger(new Map());
    topics.schedule('a');
    topics.schedule('b');
    vi.advanceTimersByTime(99);
    expect(dropped).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(dropped).toEqual([['a', 'b']]);
  });

  it('keeps a topic that is needed again, and one cancelled', () => {
    const needs = new Map<string, TopicNeed>();
    const { topics, dropped } = linger(needs);
    topics.schedule('a');
    topics.schedule('b');
    needs.set('a', 'needed');
    topics.cancel('b');
    vi.advanceTimersByTime(500);
    expect(dropped).toEqual([]);
  });

  it('waits for a later topic with a timer of its own', () => {
    const { topics, dropped } = linger(new Map());
    topics.schedule('a');
    vi.advanceTimersByTime(60);
    topics.schedule('b');
    vi.advanceTimersByTime(40);
    expect(dropped).toEqual([['a']]);
    vi.advanceTimersByTime(60);
    expect(dropped).toEqual([['a'], ['b']]);
  });

  it('leaves a topic whose subscription is in flight to be scheduled again when it settles', () => {
    const needs = new Map<string, TopicNeed>([['a', 'in-flight']]);
    const { topics, dropped } = linger(needs);
    topics.schedule('a');
    vi.advanceTimersByTime(1000);
    expect(dropped).toEqual([]);
  });
});
