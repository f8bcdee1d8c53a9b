// The SQL functions the SQLite dialect's statements call, registered per better-sqlite3 connection by the host
// (prepareSqliteConnection in knex's pool.afterCreate), and the check that they are there.
import type { Knex } from 'knex'
import { foldCase, plainNumberText } from '../../schema/field-types'

/** The parts of a better-sqlite3 Database used here. */
interface SqliteConnection {
  function(name: string, options: { deterministic: boolean }, fn: (value: unknown) => unknown): unknown
  aggregate(
    name: string,
    options: {
      safeIntegers: boolean
      deterministic: boolean
      start: () => ExactSum
      step: (total: ExactSum, value: unknown) => ExactSum
      result: (total: ExactSum) => string | null
    },
  ): unknown
  prepare(sql: string): { get(...params: unknown[]): unknown }
}

/** A decimal as an integer count of 10^-scale units. */
interface ExactSum {
  units: bigint
  scale: number
  seen: boolean
}

function addExact(total: ExactSum, value: unknown): ExactSum {
  if (value === null || value === undefined) return total
  const text = typeof value === 'bigint' ? value.toString() : typeof value === 'number' ? plainNumberText(value) : String(value)
  const [whole, fraction = ''] = text.split('.')
  const scale = Math.max(total.scale, fraction.length)
  const units = BigInt(whole + fraction.padEnd(scale, '0'))
  return { units: total.units * 10n ** BigInt(scale - total.scale) + units, scale, seen: true }
}

function exactSumText(total: ExactSum): string | null {
  if (!total.seen) return null
  const negative = total.units < 0n
  const digits = (negative ? -total.units : total.units).toString().padStart(total.scale + 1, '0')
  const body = total.scale === 0 ? digits : `${digits.slice(0, -total.scale)}.${digits.slice(-total.scale)}`
  return negative ? `-${body}` : body
}

const fold = (value: unknown): unknown => (value === null || value === undefined ? value : foldCase(String(value)))

function isSqliteConnection(connection: unknown): connection is SqliteConnection {
  const candidate = connection as Partial<SqliteConnection> | null
  return typeof candidate?.function === 'function' && typeof candidate.aggregate === 'function'
}

/**
 * Registers the SQL functions the router's SQLite statements call on a better-sqlite3 connection. Call it from
 * knex's `pool.afterCreate`, so that every connection the pool opens has them:
 *
 * - `items_fold()`, because SQLite's own lower() and LIKE fold ASCII only, and `_icontains` and `search` must
 *   treat "Ü" and "ü" alike on every database;
 * - `items_exact_sum()`, because SQLite sums decimals as doubles and overflows big integers.
 *
 * @example
 * knexFactory({
 *   client: 'better-sqlite3',
 *   connection: { filename: 'app.db' },
 *   useNullAsDefault: true,
 *   pool: { afterCreate: (connection, done) => { prepareSqliteConnection(connection); done(null, connection) } },
 * })
 */
export function prepareSqliteConnection(connection: unknown): void {
  if (!isSqliteConnection(connection)) {
    throw new TypeError('prepareSqliteConnection expects a better-sqlite3 Database: the connection knex passes to pool.afterCreate')
  }
  connection.function('items_fold', { deterministic: true }, fold)
  // safeIntegers: integers past 2^53 arrive as BigInt instead of rounded doubles.
  connection.aggregate('items_exact_sum', {
    safeIntegers: true,
    deterministic: true,
    start: () => ({ units: 0n, scale: 0, seen: false }),
    step: addExact,
    result: exactSumText,
  })
}

/** What the host has to add; the message a misconfigured router answers and logs. */
export const MISSING_SQLITE_FUNCTIONS =
  "the SQLite connections lack the SQL functions items_fold and items_exact_sum. Register them on every connection: import { prepareSqliteConnection } from 'express-items-router' and add to the knex configuration " +
  '`pool: { afterCreate: (connection, done) => { prepareSqliteConnection(connection); done(null, connection) } }` ' +
  '(or call prepareSqliteConnection(connection) in your own afterCreate, before done).'

/**
 * Runs both functions once on a pooled connection: null when they are registered, else what to add. The probe
 * goes to the driver directly rather than through knex, because it belongs to no request: it must not show up
 * among the statements the host's `query` listeners see, nor count as SQL sent by a rejected request.
 */
export async function checkSqliteFunctions(knex: Knex): Promise<string | null> {
  const connection = (await knex.client.acquireConnection()) as SqliteConnection
  try {
    connection.prepare('select items_fold(?) as folded, items_exact_sum(?) as total').get('Ü', 1)
    return null
  } catch (error) {
    // better-sqlite3 refuses to prepare a statement that calls an unknown function. Read the message without
    // `instanceof Error`: the addon builds its errors in the realm that loaded it first (jest runs each spec
    // file in a realm of its own).
    const message = (error as { message?: unknown } | null)?.message
    if (typeof message === 'string' && /no such function/i.test(message)) return MISSING_SQLITE_FUNCTIONS
    throw error
  } finally {
    await knex.client.releaseConnection(connection)
  }
}
