export {
  type AppFields,
  type ColumnProblem,
  checkFields,
  parseRow,
  type RowResult,
  type StoredApp,
} from './columns.js';
export { AppStorePostgresError, type AppStorePostgresErrorCode, isAppStorePostgresError } from './errors.js';
export { type LogFields, type Logger, silentLogger } from './logger.js';
export { migrationSql, type TableNames, tableNames } from './migration.js';
export {
  type AppStoreMetrics,
  createPostgresAppStore,
  generateSecret,
  type PostgresAppStore,
  type PostgresAppStoreOptions,
  type RotatedSecret,
} from './postgres-app-store.js';
