import { expect } from 'vitest';
import { CouldNotSendNotification } from '../src/index.js';

/** Awaits a promise that must reject with a CouldNotSendNotification, and gives the error. */
export async function rejection(promise: Promise<unknown>): Promise<CouldNotSendNotification> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(CouldNotSendNotification);
  return error as CouldNotSendNotification;
}
