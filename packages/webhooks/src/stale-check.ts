import type { WebhookEvent } from './events.js';
import type { WebhookEventCheck } from './options.js';
import { subjectOf } from './subject.js';

/** Answers the events of a batch that still hold: the batch itself when none was overtaken. */
export type StaleCheck = (appId: string, events: readonly WebhookEvent[]) => Promise<readonly WebhookEvent[]>;

/**
 * Creates a {@link StaleCheck} over the app's `isStillTrue`. Only the last event of each subject in a batch is
 * asked about: the ones before it in the same batch are this process's own earlier changes, already in order,
 * and a later change of the subject overtakes them anyway. A check that throws or rejects counts as holding
 * (after `onCheckFailed`): better a late event than a lost one.
 */
export function createStaleCheck(
  isStillTrue: WebhookEventCheck,
  onCheckFailed: (appId: string, event: WebhookEvent, error: unknown) => void,
): StaleCheck {
  const failed = (appId: string, event: WebhookEvent, error: unknown): true => {
    onCheckFailed(appId, event, error);
    return true;
  };
  const verdictOf = (appId: string, event: WebhookEvent): boolean | Promise<boolean> => {
    try {
      const verdict = isStillTrue(appId, event);
      return typeof verdict === 'boolean'
        ? verdict
        : verdict.catch((error: unknown) => failed(appId, event, error));
    } catch (error) {
      return failed(appId, event, error);
    }
  };
  return async (appId, events) => {
    const last = new Map<string, number>();
    events.forEach((event, index) => {
      const subject = subjectOf(event);
      if (subject !== undefined) last.set(subject.id, index);
    });
    if (last.size === 0) return events;
    // Never in the emitter's own call stack: a server may emit a change before it has finished making it (say,
    // occupied as it creates the channel, before it counts the subscriber).
    await Promise.resolve();
    const checked = [...last.values()];
    const verdicts = checked.map((index) => verdictOf(appId, events[index]!));
    // Stay synchronous when every answer is: no extra turn for a check that needs none.
    const holds = verdicts.every((verdict) => typeof verdict === 'boolean')
      ? verdicts
      : await Promise.all(verdicts);
    const stale = new Set(checked.filter((_, position) => holds[position] === false));
    return stale.size === 0 ? events : events.filter((_, index) => !stale.has(index));
  };
}
