// A write's transaction without knex's Transaction. knex builds a new knex instance, client and event wiring for
// every transaction (several times a small statement's own CPU on PostgreSQL and MySQL: the bench's `create one`
// and `update one` rows), where
// the router's writes need only BEGIN, their statements and COMMIT on one pooled connection. Only for a transaction
// none of the host's code receives: a before hook's `meta.db` may use any part of knex (see ItemsRepository).
// The same binding serves statements that share a connection without a transaction (`onOneConnection`).
import type { Knex } from 'knex'
import { clientQuery, withConnection } from '../knex-adapter'
import type { Db } from './db'

/** How long a ROLLBACK may take before the connection goes back anyway, as knex's own transactions allow it. */
const ROLLBACK_WAIT_MS = 5_000

/**
 * Runs `work` between BEGIN and COMMIT on one connection of `knex`'s pool. `work` receives a knex whose statements
 * run on that connection: those it builds (`db(table)`, `db.select(...)`, `db.queryBuilder()`) and its raw ones.
 * An error rolls the transaction back and is thrown as it came.
 */
export function bareTransaction<T>(knex: Knex, work: (db: Db) => Promise<T>): Promise<T> {
  return withConnection(knex, async (connection) => {
    await clientQuery(knex, connection, 'BEGIN')
    let result: T
    try {
      result = await work(boundTo(knex, connection))
    } catch (error) {
      await rollback(knex, connection)
      throw error
    }
    await clientQuery(knex, connection, 'COMMIT')
    return result
  })
}

/**
 * Runs `work` with its statements on one connection of `knex`'s pool, outside a transaction: each statement still
 * commits on its own, but those after the first wait for no connection of their own.
 */
export function onOneConnection<T>(knex: Knex, work: (db: Db) => Promise<T>): Promise<T> {
  return withConnection(knex, (connection) => work(boundTo(knex, connection)))
}

/** What a knex `boundTo` made answers for this key: the instance and connection it is bound to (see pinnedTo). */
const PINNED = Symbol('pinned')

interface Pinned {
  readonly knex: Knex
  readonly connection: unknown
}

/** The knex instance and the connection `db`'s statements run on, when `db` is a bare transaction's. */
export function pinnedTo(db: Db): Pinned | undefined {
  return (db as unknown as { [PINNED]?: Pinned })[PINNED]
}

/** Members of knex that would run statements outside the connection: refused, so that a misuse shows at once. */
const LEAVES_THE_CONNECTION = new Set<PropertyKey>(['transaction', 'transactionProvider', 'batchInsert', 'schema'])

/**
 * `knex` with its statements on `connection`. Every query builder knex makes comes from `queryBuilder` (the
 * instance's own query methods, `select` and the rest, call it on `this`), so binding that, the call and `raw`
 * binds them all.
 */
function boundTo(knex: Knex, connection: unknown): Db {
  const makeRaw = knex.raw.bind(knex) as (...args: unknown[]) => Knex.Raw
  const bound = new Map<PropertyKey, unknown>([
    ['queryBuilder', () => knex.queryBuilder().connection(connection)],
    ['raw', (...args: unknown[]) => makeRaw(...args).connection(connection)],
    [PINNED, { knex, connection } satisfies Pinned],
  ])
  return new Proxy(knex, {
    apply: (target, _this, args: Parameters<Knex>) => target(...args).connection(connection),
    get: (target, property, receiver) => {
      if (bound.has(property)) return bound.get(property)
      if (LEAVES_THE_CONNECTION.has(property)) throw new Error(`knex.${String(property)} cannot run inside a bare transaction`)
      return Reflect.get(target, property, receiver)
    },
  })
}

/**
 * Ends the transaction without its writes. A connection that cannot (it was lost) goes back to the pool all the
 * same, which checks a connection before lending it again; a ROLLBACK that hangs is waited for only so long.
 */
async function rollback(knex: Knex, connection: unknown): Promise<void> {
  let timer: NodeJS.Timeout | undefined
  const waited = new Promise<void>((resolve) => (timer = setTimeout(resolve, ROLLBACK_WAIT_MS)))
  try {
    await Promise.race([clientQuery(knex, connection, 'ROLLBACK').catch(() => undefined), waited])
  } finally {
    clearTimeout(timer)
  }
}
