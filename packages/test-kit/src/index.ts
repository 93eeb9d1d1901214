// Test support for Herald's own tests (private, never published). Framework-free: any test runner can use it.

/** A test fence: proves an unwanted item did not come by waiting for a marker sent after it on the same path. */
export { type FenceOptions, fence } from './fence.js';
/** A TCP port on 127.0.0.1 that was free a moment ago. */
export { freePort } from './free-port.js';
/** PostgreSQL helpers: the test database's URL, random schema names, one-off statements, dropping a schema. */
export { dropSchema, POSTGRES_URL, randomSchema, sql } from './postgres.js';
/** Starts a process and waits for the line that says it is ready. */
export { type StartedProcess, type StartProcessOptions, startProcess } from './process-line.js';
/** Starts a Redis Cluster of three masters of the test's own. */
export { type RedisClusterProcesses, startRedisCluster } from './redis-cluster.js';
/** Starts a redis-server of the test's own on a free port. */
export { type RedisOptions, type RedisProcess, startRedis } from './redis-server.js';
/** Lets time pass; only where a test must (a lease or a timer that has to run out). */
export { sleep } from './sleep.js';
/** A TCP proxy on loopback a test can cut, freeze, restore and point at another server. */
export { startTcpProxy, type TcpProxy, type TcpTarget } from './tcp-proxy.js';
/** Waits until a condition holds, with a generous outer limit and a failure that names the condition. */
export { UNTIL_LIMIT_MS, type UntilOptions, until } from './until.js';
