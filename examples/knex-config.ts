// The knex, pool and driver settings we recommend to hosts on PostgreSQL and MySQL/MariaDB, so that a lost
// connection, a partition or a database restart costs a few seconds of 503s instead of a hung pool.
import type { Knex } from 'knex'

export interface Timeouts {
  /** Longest wait for a new connection (TCP + handshake). */
  readonly connectMs: number
  /** Longest wait for a pooled connection; past it the router answers 503. */
  readonly acquireMs: number
  /** Longest wait for any one statement's answer (pg `query_timeout`). */
  readonly queryMs: number
  /** Idle time before TCP keepalive probes start, and before an idle pooled connection is closed. */
  readonly idleMs: number
}

export const PRODUCTION_TIMEOUTS: Timeouts = { connectMs: 5_000, acquireMs: 10_000, queryMs: 30_000, idleMs: 30_000 }

/**
 * `pool.min: 0` and `idleTimeoutMillis` let connections that died during an outage be dropped instead of kept;
 * `propagateCreateError: true` (knex's default, stated here because it matters) makes a request fail at once
 * when the database refuses connections, instead of waiting out `acquireConnectionTimeout`.
 */
function pool(timeouts: Timeouts, max: number): Knex.PoolConfig {
  return { min: 0, max, idleTimeoutMillis: timeouts.idleMs, propagateCreateError: true }
}

/**
 * pg: `keepAlive` notices a dead peer on an idle connection; `query_timeout` bounds a statement in a partition.
 * A connection whose statement timed out that way still waits for the lost answer, and every later statement
 * on it would time out too, so `pool.validate` discards a connection that is not idle when handed out.
 */
export function postgresConfig(connection: Knex.PgConnectionConfig, timeouts = PRODUCTION_TIMEOUTS, max = 10): Knex.Config {
  return {
    client: 'pg',
    acquireConnectionTimeout: timeouts.acquireMs,
    pool: { ...pool(timeouts, max), validate: (client: { readyForQuery?: boolean }) => client.readyForQuery === true },
    connection: {
      ...connection,
      keepAlive: true,
      keepAliveInitialDelayMillis: timeouts.idleMs,
      connectionTimeoutMillis: timeouts.connectMs,
      query_timeout: timeouts.queryMs,
    } as Knex.PgConnectionConfig,
  }
}

/**
 * mysql2: `enableKeepAlive` and `connectTimeout`. mysql2 has no per-connection statement timeout: bound
 * statements with MySQL's `max_execution_time` (reads) or the router's statement timeout.
 */
export function mysqlConfig(connection: Knex.MySql2ConnectionConfig, timeouts = PRODUCTION_TIMEOUTS, max = 10): Knex.Config {
  return {
    client: 'mysql2',
    acquireConnectionTimeout: timeouts.acquireMs,
    pool: pool(timeouts, max),
    connection: {
      ...connection,
      enableKeepAlive: true,
      keepAliveInitialDelay: timeouts.idleMs,
      connectTimeout: timeouts.connectMs,
    } as Knex.MySql2ConnectionConfig,
  }
}
