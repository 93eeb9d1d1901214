// The key format and cipher live in @herald/protocol-core, shared with the notification store; this module keeps
// `@herald/app-store-postgres/key` (what apps import to read a key before any store is opened) where it was.
export {
  createSecretCipher,
  isSealed,
  type OpenProblem,
  parseStoreKey,
  type SecretCipher,
} from '@herald/protocol-core';
