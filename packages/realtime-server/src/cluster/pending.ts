import type { Awaitable } from '@herald/protocol-core';

/**
 * Whether an adapter's answer is still to come (a promise) rather than given at once: the server alone answers at
 * once, and its callers then go on synchronously, without a promise or a closure.
 */
export function isPending<T>(answer: Awaitable<T>): answer is Promise<T> {
  return answer instanceof Promise;
}
