import { randomBytes } from 'node:crypto';

/** A new random secret: 32 bytes, hex. */
export function generateSecret(): string {
  return randomBytes(32).toString('hex');
}
