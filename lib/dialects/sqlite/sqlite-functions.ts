// The SQL functions the SQLite dialect's statements call, registered per better-sqlite3 connection (by the router
// on its knex's pool, see Dialect.prepareConnection; by the host on connections it opens outside knex), and the
// check that they are there.
import type { Knex } from 'knex'
import { withConnection } from '../../knex-adapter'
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

/** Connections that have the functions already: a second call on one changes nothing. */
const prepared = new WeakSet<object>()

/**
 * Registers the SQL functions the router's SQLite statements call on a better-sqlite3 connection. The router
 * does it itself on every connection of its knex instance's pool; call it for connections you open outside
 * knex's own pool (a `connectionPool` of your own):
 *
 * - `items_fold()`, because SQLite's own lower() and LIKE fold ASCII only, and `_icontains` and `search` must
 *   treat "Ü" and "ü" alike on every database;
 * - `items_exact_sum()`, because SQLite sums decimals as doubles and overflows big integers.
 *
 * @example
 * prepareSqliteConnection(new Database('app.db'))
 */
export function prepareSqliteConnection(connection: unknown): void {
  if (!isSqliteConnection(connection)) {
    throw new TypeError('prepareSqliteConnection expects a better-sqlite3 Database')
  }
  if (prepared.has(connection)) return
  prepared.add(connection)
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
  "the SQLite connections lack the SQL functions items_fold and items_exact_sum. The router registers them on the connections of knex's own pool; on connections from a pool of your own, call prepareSqliteConnection(connection) from 'express-items-router' once on each."

/**
 * Runs both functions once on a pooled connection: null when they are registered, else what to add. The probe
 * goes to the driver directly rather than through knex, because it belongs to no request: it must not show up
 * among the statements the host's `query` listeners see, nor count as SQL sent by a rejected request.
 */
export async function checkSqliteFunctions(knex: Knex): Promise<string | null> {
  return withConnection(knex, async (pooled) => {
    const connection = pooled as unknown as SqliteConnection
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
    }
  })
}
