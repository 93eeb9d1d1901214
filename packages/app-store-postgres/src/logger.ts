// One logger port for every Herald library: it lives in protocol-core.
export { type LogFields, type Logger, silentLogger } from '@herald/protocol-core';
