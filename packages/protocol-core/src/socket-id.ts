import { randomInt } from 'node:crypto';
import { ProtocolCoreError } from './errors.js';

const SOCKET_ID = /^\d+\.\d+$/;

/** Tells whether a string has the shape of a socket id (`\d+\.\d+`), as the server SDKs check it. */
export function isSocketId(value: string): boolean {
  return SOCKET_ID.test(value);
}

/** A source of socket ids unique within its node. */
export type SocketIdGenerator = () => string;

/**
 * Creates a socket id generator. The part before the dot identifies the node (random by default, so ids from
 * several nodes do not collide); the part after it is a counter that starts at a random offset.
 *
 * @throws {ProtocolCoreError} when `nodeNumber` is not a non-negative safe integer.
 */
export function createSocketIdGenerator(nodeNumber: number = randomInt(1, 2 ** 40)): SocketIdGenerator {
  if (!Number.isSafeInteger(nodeNumber) || nodeNumber < 0) {
    throw new ProtocolCoreError('invalid_argument', 'nodeNumber must be a non-negative safe integer');
  }
  let counter = randomInt(1, 2 ** 30);
  return () => {
    counter += 1 + randomInt(0, 16);
    return `${nodeNumber}.${counter}`;
  };
}
