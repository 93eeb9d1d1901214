export {
  type AppFields,
  type ColumnProblem,
  checkFields,
  parseApp,
  parseRow,
  type RowResult,
  type StoredApp,
} from './columns.js';
export { AppStorePostgresError, type AppStorePostgresErrorCode, isAppStorePostgresError } from './errors.js';
export { generateSecret } from './generate-secret.js';
export { createSecretCipher, isSealed, parseStoreKey, type SecretCipher } from './key.js';
export { type LogFields, type Logger, silentLogger } from './logger.js';
export type { AppStoreMetrics } from './metrics.js';
export { migrationSql, type TableNames, tableNames } from './migration.js';
export {
  createPostgresAppStore,
  type PostgresAppStore,
  type PostgresAppStoreOptions,
} from './postgres-app-store.js';
export type { RotatedSecret } from './queries.js';
