// A transaction for a write that is one statement, run without knex's Transaction. knex builds a new knex
// instance, client and event wiring for every transaction (about 0.3 ms of CPU each on PostgreSQL and MySQL,
// four times the statement's own), where such a write needs only BEGIN, its statement and COMMIT on one pooled
// connection. The transaction itself stays: a connection lost before COMMIT has written nothing.
import type { Knex } from 'knex'
import type { Db } from './item-loader'

/** How long a ROLLBACK may take before the connection goes back anyway, as knex's own transactions allow it. */
const ROLLBACK_WAIT_MS = 5_000

/**
 * Runs `work` between BEGIN and COMMIT on one connection of `knex`'s pool. `work` receives a knex whose query
 * builders and raw statements run on that connection; it must build its statements from it (`db(table)`,
 * `db.raw`) and run nothing else: another member of knex (`transaction`, `schema`, ...) would use the pool. An
 * error rolls the transaction back and is thrown as it came.
 */
export async function bareTransaction<T>(knex: Knex, work: (db: Db) => Promise<T>): Promise<T> {
  const { client } = knex
  const connection: unknown = await client.acquireConnection()
  try {
    await client.query(connection, 'BEGIN')
    let result: T
    try {
      result = await work(boundTo(knex, connection))
    } catch (error) {
      await rollback(client, connection)
      throw error
    }
    await client.query(connection, 'COMMIT')
    return result
  } finally {
    await client.releaseConnection(connection)
  }
}

/** `knex` with its statements on `connection`: a builder or a raw statement is bound as it is made. */
function boundTo(knex: Knex, connection: unknown): Db {
  const makeRaw = knex.raw.bind(knex) as (...args: unknown[]) => Knex.Raw
  const raw = ((...args: unknown[]) => makeRaw(...args).connection(connection)) as Knex.RawBuilder
  return new Proxy(knex, {
    apply: (target, _this, args: Parameters<Knex>) => target(...args).connection(connection),
    get: (target, property, receiver) => (property === 'raw' ? raw : Reflect.get(target, property, receiver)),
  })
}

/**
 * Ends the transaction without its writes. A connection that cannot (it was lost) goes back to the pool all the
 * same, which checks a connection before lending it again; a ROLLBACK that hangs is waited for only so long.
 */
async function rollback(client: Knex.Client, connection: unknown): Promise<void> {
  let timer: NodeJS.Timeout | undefined
  const waited = new Promise<void>((resolve) => (timer = setTimeout(resolve, ROLLBACK_WAIT_MS)))
  try {
    await Promise.race([client.query(connection, 'ROLLBACK').catch(() => undefined), waited])
  } finally {
    clearTimeout(timer)
  }
}
