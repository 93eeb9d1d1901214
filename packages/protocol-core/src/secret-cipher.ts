import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { fail, ok, type Result } from './result.js';

// Secrets at rest, one scheme for every Herald store that keeps one (the app store's app secrets, the notification
// store's VAPID private key), so there is one place to review and one format to read.
// A sealed secret is `herald:v1:<key id>:<base64 of IV (12 bytes) | auth tag (16 bytes) | ciphertext>`. The prefix
// tells a sealed value from a plaintext one (a secret never starts with it: generated secrets are hex or base64url), the
// version leaves room for another scheme, and the key id says which key sealed it, so a row sealed with another
// key is named as such instead of failing as "corrupt".
const PREFIX = 'herald:v1:';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;
const ALGORITHM = 'aes-256-gcm';
const HEX_KEY = /^[0-9a-fA-F]{64}$/;
const BASE64_KEY = /^[A-Za-z0-9+/]{43}=?$|^[A-Za-z0-9_-]{43}=?$/;

/** Why a sealed value could not be opened. */
export type OpenProblem =
  /** The value is sealed and no key was given. */
  | 'key_required'
  /** The GCM tag does not verify under this key: sealed with another key (its key id says which), or altered. */
  | 'wrong_key'
  /** Starts like a sealed value but is not one (cut short, not base64). */
  | 'corrupt';

/** Encrypts and decrypts secrets kept at rest (app secrets, VAPID private keys) with one AES-256-GCM key. */
export interface SecretCipher {
  /** A short public fingerprint of the key, written into every value it seals. */
  readonly keyId: string;
  /** Encrypts a secret with a fresh random IV. */
  seal(plain: string): string;
  /** Decrypts a sealed value; a plaintext value is returned as it is. */
  open(stored: string): Result<string, OpenProblem>;
}

/** Whether a stored value is a sealed secret rather than plaintext. */
export const isSealed = (stored: string): boolean => stored.startsWith(PREFIX);

/** The key id a sealed value names, or undefined for plaintext. */
export function sealedKeyId(stored: string): string | undefined {
  if (!isSealed(stored)) return undefined;
  const end = stored.indexOf(':', PREFIX.length);
  return end < 0 ? undefined : stored.slice(PREFIX.length, end);
}

/**
 * Reads a 32-byte key given as 64 hex characters or as base64 (standard or URL-safe). Returns what is wrong
 * otherwise, without repeating the value (it is a secret).
 */
export function parseStoreKey(text: string): Result<Uint8Array, string> {
  const trimmed = text.trim();
  if (HEX_KEY.test(trimmed)) return ok(Buffer.from(trimmed, 'hex'));
  if (BASE64_KEY.test(trimmed)) {
    const bytes = Buffer.from(
      trimmed,
      trimmed.includes('-') || trimmed.includes('_') ? 'base64url' : 'base64',
    );
    if (bytes.length === KEY_BYTES) return ok(bytes);
  }
  return fail(
    `must be 32 bytes written as 64 hex characters or as base64 (got ${trimmed.length} characters); make one with \`openssl rand -hex 32\``,
  );
}

/** The public id of a key: enough to tell keys apart in a row, nothing to learn the key from. */
function keyIdOf(key: Uint8Array): string {
  // The label predates the other stores; changing it would change the id every sealed row names.
  return createHash('sha256').update('herald app store key id\0').update(key).digest('hex').slice(0, 12);
}

/**
 * Creates the cipher of a 32-byte key (AES-256-GCM, node:crypto).
 * @throws {RangeError} when the key is not 32 bytes (a programmer error: parse it with {@link parseStoreKey}).
 */
export function createSecretCipher(key: Uint8Array): SecretCipher {
  if (key.length !== KEY_BYTES) throw new RangeError(`a store key must be ${KEY_BYTES} bytes`);
  const secretKey = Buffer.from(key);
  const keyId = keyIdOf(secretKey);
  const head = `${PREFIX}${keyId}:`;
  return {
    keyId,
    seal(plain) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv(ALGORITHM, secretKey, iv);
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return `${head}${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`;
    },
    open(stored) {
      if (!isSealed(stored)) return ok(stored);
      const id = sealedKeyId(stored);
      if (id === undefined) return fail('corrupt');
      // Decrypted whatever key id the value names: the GCM tag is what decides, the id only names the key in the
      // message.
      const packed = Buffer.from(stored.slice(PREFIX.length + id.length + 1), 'base64');
      if (packed.length < IV_BYTES + TAG_BYTES) return fail('corrupt');
      const decipher = createDecipheriv(ALGORITHM, secretKey, packed.subarray(0, IV_BYTES));
      decipher.setAuthTag(packed.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      try {
        const plain = Buffer.concat([
          decipher.update(packed.subarray(IV_BYTES + TAG_BYTES)),
          decipher.final(),
        ]);
        return ok(plain.toString('utf8'));
      } catch {
        // GCM's tag did not verify: sealed by another key, or altered.
        return fail('wrong_key');
      }
    },
  };
}

/** Opens a stored value without a key: plaintext passes, a sealed value needs the key. */
export function openWithoutKey(stored: string): Result<string, OpenProblem> {
  return isSealed(stored) ? fail('key_required') : ok(stored);
}
