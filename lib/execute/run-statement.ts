// Runs the router's own statements past knex's Raw and Runner: a kept plan's SQL (statement-templates.ts) and its
// one-statement writes (`runBuilder`). Through them a statement costs a measurable share of a small read (bench
// rows "one item with o2m keys", "create one") beyond its driver call: a Raw to hold it, its text scanned again
// for placeholders, an id, a runner, the `start`
// listeners (statement-guard.ts sets a timeout and a listener on each statement), the timeout's race and a dozen
// promises. Such a statement's text is final and its values are bound, so it needs only knex's client: a
// connection from the pool, `client.query` (knex's `query` and `query-error` events, the driver call and with it
// the router's statement reuse), and the request's limits, applied here as knex's runner applies them.
import { KnexTimeoutError, type Knex } from 'knex'
import {
  acquireConnection,
  cancelQuery,
  clientQuery,
  disposeConnection,
  emitQueryResponse,
  isTransactionClient,
  processResponse,
  releaseConnection,
  type ClientQuery,
  type PooledConnection,
} from '../knex-adapter'
import { pinnedTo } from './bare-transaction'
import type { Db } from './db'
import { statementLimits, type StatementLimits } from './statement-guard'

/**
 * The result of `sql` with `bindings` on `db`, as `db.raw(sql, bindings)` gives it; with a `method` of knex's
 * ('update'), as a builder of that method would (its count of changed rows). A bare transaction's statements
 * run on its connection; a knex transaction's go through knex, whose transactions run on a client of their own
 * (a raw statement only: a kept write there is compiled afresh, see StatementTemplates.write). knex's `start` event
 * does not fire for the statements run here, and its `query-response` event has no builder.
 */
export function runStatement(db: Db, sql: string, bindings: readonly unknown[], method = 'raw'): Promise<unknown> {
  if (inKnexTransaction(db)) {
    if (method !== 'raw') return Promise.reject(new Error(`express-items-router: a kept ${method} cannot run in a knex transaction`))
    return db.raw(sql, bindings as Knex.RawBinding[]).then()
  }
  return execute(db, { method, sql, bindings: bindings.slice(), options: {} })
}

/**
 * What awaiting `builder` (a query builder made from `db`) gives, with the builder only compiling: its statement
 * runs as `runStatement`'s do. For the writes the router makes itself, never one a hook receives.
 */
export function runBuilder<T>(db: Db, builder: Knex.QueryBuilder): Promise<T> {
  const compiled = inKnexTransaction(db) ? null : (builder.toSQL() as unknown as ClientQuery | ClientQuery[])
  // Statements knex runs in several steps (SQLite's multi-statement forms) stay with knex.
  if (compiled === null || Array.isArray(compiled)) return builder.then() as Promise<T>
  // All of it, as the runner passes it: `returning` and `output` tell processResponse how to read the result.
  return execute(db, { ...compiled, bindings: [...compiled.bindings], options: compiled.options ?? {} }) as Promise<T>
}

/** Whether `db` is a knex transaction, whose statements knex must run (see runStatement). */
export const inKnexTransaction = (db: Db): boolean => (db as Partial<Knex.Transaction>).isTransaction === true

function execute(db: Db, compiled: ClientQuery): Promise<unknown> {
  const { sql, bindings } = compiled
  const pinned = pinnedTo(db)
  const knex = pinned?.knex ?? (db as Knex)
  const limits = statementLimits(knex, isTransactionClient(knex.client))
  const query: ClientQuery = { ...compiled, sql: limits.marker + sql }
  if (pinned) return run(knex, pinned.connection as PooledConnection, query, limits)
  return acquireConnection(knex).then(
    (connection) => {
      const release = (): void => void releaseConnection(knex, connection)
      let running: Promise<unknown>
      try {
        running = run(knex, connection, query, limits)
      } catch (error) {
        release()
        throw error
      }
      return running.then(
        (response) => (release(), response),
        (error: unknown) => {
          release()
          throw error
        },
      )
    },
    (error: unknown) => {
      // As knex's runner tells a full pool's timeout: with the statement that waited.
      if (error instanceof KnexTimeoutError) Object.assign(error, { sql, bindings })
      throw error
    },
  )
}

function run(knex: Knex, connection: PooledConnection, query: ClientQuery, limits: StatementLimits): Promise<unknown> {
  const running = clientQuery(knex, connection, query)
  const limited = limits.statementTimeout > 0 ? timeLimited(knex, connection, running, query, limits) : running
  return limited.then((done) => {
    const response = processResponse(knex, done)
    emitQueryResponse(knex, response, connection, query)
    return response
  })
}

/**
 * `running`, or at the request's time limit knex's timeout error once the statement was cancelled from another
 * connection (as `timeout(ms, { cancel: true })` does). A connection whose statement could not be cancelled is
 * marked for the pool to destroy.
 */
function timeLimited(
  knex: Knex,
  connection: PooledConnection,
  running: Promise<ClientQuery>,
  query: ClientQuery,
  limits: StatementLimits,
): Promise<ClientQuery> {
  const ms = limits.statementTimeout
  const { sql, bindings } = query
  return new Promise((resolve, reject) => {
    let timedOut = false
    const timer = setTimeout(() => {
      timedOut = true
      const timeout = Object.assign(new KnexTimeoutError(`Defined query timeout of ${ms}ms exceeded when running query.`), {
        sql,
        bindings,
        timeout: ms,
      })
      cancelQuery(knex, connection).then(
        () => {
          limits.cancelTimedOut()
          reject(timeout)
        },
        (cancelError: unknown) => {
          disposeConnection(connection, timeout)
          reject(
            Object.assign(cancelError as object, {
              message: `After query timeout of ${ms}ms exceeded, cancelling of query failed.`,
              sql,
              bindings,
              timeout: ms,
            }),
          )
        },
      )
    }, ms)
    running.then(
      (done) => {
        if (timedOut) return
        clearTimeout(timer)
        resolve(done)
      },
      (error: unknown) => {
        if (timedOut) return
        clearTimeout(timer)
        reject(error)
      },
    )
  })
}
