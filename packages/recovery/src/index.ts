export type { HistoryPosition } from '@herald/protocol-core/recovery';
export { enableRecovery, type RecoverablePusher, type Recovery } from './enable-recovery.js';
