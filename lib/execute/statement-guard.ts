// Bounds the statements the router's requests run: a time limit per statement, cancellation of a request's
// running statements when the request is aborted, and the API error either one ends in.
import type { Knex } from 'knex'
import { ItemsError } from '../errors'
import { cancelQuery, canCancelQuery, changeCompiled, clientOfBuilder, isTransactionClient } from '../knex-adapter'
import { currentRequest, StateSlot, type RequestState, type StateSetup } from '../request-state'
import type { Dialect, RequestLimits } from '../dialects'
import { runningConnections, unmarked } from './statement-cache'

/** The comment that starts every statement of a request, so the dialect can find and cancel them. */
const marker = (state: RequestState): string => `/* items-router ${state.id} */ `

type Compiled = { sql: string } | { sql: string }[]
/** Set on a statement once guarded (a property, not a WeakSet entry: see StateSlot). */
const GUARDED = Symbol('guarded')
type Runnable = (Knex.QueryBuilder | Knex.Raw) & { toSQL(): Compiled; [GUARDED]?: true }

interface Guard {
  readonly statementTimeout: number
  readonly cancel: (knex: Knex, marker: string) => Promise<unknown>
}

/** The guard of the request's router; the knex listeners look it up on the request's state. */
const guards = new StateSlot<Guard>('guard')
/** knex instances with our listeners: one each, however many routers share it. */
const listening = new WeakSet<Knex>()
/** The knex instances (primary, replica) whose statements an abort of the state cancels. */
const cancelledOnAbort = new StateSlot<Set<Knex>>('cancelledOnAbort')

/**
 * The request state's setup that puts the request's statements under this router's limits (null: the dialect
 * cancels nothing).
 * Registers one listener on each knex instance (the primary and a replica): its `start` event fires per
 * statement once it holds its connection, before the SQL is compiled, in the async context of the code that
 * awaits it (hooks' statements on `meta.db` included). Statements outside the router's requests (the host's own)
 * are left alone.
 */
export function guardStatements(instances: readonly Knex[], dialect: Dialect, statementTimeout: number): StateSetup | null {
  const cancel = dialect.cancelStatements
  if (cancel === null) return null
  for (const knex of instances) {
    // A client that cannot cancel (the host's own better-sqlite3 connection) runs its statements to the end.
    if (listening.has(knex) || !canCancelQuery(knex)) continue
    listening.add(knex)
    knex.on('start', (builder: Runnable) => guardStatement(knex, builder))
  }
  const guard: Guard = { statementTimeout, cancel }
  return (_req, state) => guards.set(state, guard)
}

/**
 * The current request's limits for a statement the router sends past knex (PostgreSQL's COPY): the marker an
 * abort cancels it by, and its time limit in milliseconds (0: none). Outside a guarded request, neither.
 */
export function requestLimits(): RequestLimits {
  const state = currentRequest()
  const guard = state && guards.get(state)
  return state === undefined || guard === undefined
    ? { marker: '', statementTimeout: 0 }
    : { marker: marker(state), statementTimeout: guard.statementTimeout }
}

function guardStatement(knex: Knex, builder: Runnable): void {
  // Query builders and raw statements only: a schema builder (the versions table's DDL) has no timeout.
  if (builder[GUARDED] === true || typeof builder.timeout !== 'function') return
  const guarded = enter(knex)
  if (guarded === undefined) return
  const { state, guard } = guarded
  builder[GUARDED] = true
  // cancel: knex cancels the statement from a separate connection (pg_cancel_backend, KILL QUERY) and gives
  // the connection back to the pool, instead of discarding a connection that is still busy.
  if (guard.statementTimeout > 0) {
    builder.timeout(guard.statementTimeout, { cancel: true })
    // knex reports its own timeout on the builder only, not on the knex instance.
    builder.on('query-error', (error: unknown) => cancelTimedOut(knex, state, guard, error))
  }
  // A reused prepared statement must keep its text, so it goes unmarked and is cancelled by its connection.
  if (!unmarked(state, isTransactionClient(clientOfBuilder(builder)))) {
    changeCompiled(builder, (compiled: Compiled) => {
      for (const statement of [compiled].flat()) statement.sql = `${marker(state)}${statement.sql}`
    })
  }
}

/**
 * The current request's state and guard, when it has one and `knex` is guarded, with the request's abort now
 * cancelling its statements on `knex`.
 */
function enter(knex: Knex): { readonly state: RequestState; readonly guard: Guard } | undefined {
  const state = currentRequest()
  const guard = state && guards.get(state)
  if (state === undefined || guard === undefined || !listening.has(knex)) return undefined
  let instances = cancelledOnAbort.get(state)
  if (instances === undefined) cancelledOnAbort.set(state, (instances = new Set()))
  if (!instances.has(knex)) {
    instances.add(knex)
    const stop = (): void => {
      guard.cancel(knex, marker(state).trimEnd()).catch(() => undefined)
      for (const connection of runningConnections(state)) cancelOn(knex, connection)
    }
    state.onAbort(stop)
  }
  return { state, guard }
}

/** How the current request limits a statement it runs on `knex` past knex's runner (see run-statement.ts). */
export interface StatementLimits {
  /** What the statement's text starts with: the request's marker comment, or '' for a reused statement. */
  readonly marker: string
  /** Its time limit in milliseconds; 0: none. */
  readonly statementTimeout: number
  /** Cancels the request's statements by their marker, after a timed-out one was cancelled by its connection. */
  cancelTimedOut(): void
}

/** No limits: outside the router's requests, or on a knex instance whose statements cannot be cancelled. */
const UNLIMITED: StatementLimits = { marker: '', statementTimeout: 0, cancelTimedOut: () => undefined }

/**
 * The limits the `start` listener puts on a statement built with knex, for one the router runs itself on `knex`
 * (`client` the one it runs through), with the request's abort cancelling it.
 */
export function statementLimits(knex: Knex, inTransaction: boolean): StatementLimits {
  const guarded = enter(knex)
  if (guarded === undefined) return UNLIMITED
  const { state, guard } = guarded
  return {
    marker: unmarked(state, inTransaction) ? '' : marker(state),
    statementTimeout: guard.statementTimeout,
    cancelTimedOut: () => void guard.cancel(knex, marker(state).trimEnd()).catch(() => undefined),
  }
}

/**
 * After knex's own cancellation of a timed-out statement, cancels the request's statements by their marker too.
 * knex signals the backend process id the driver learnt when it connected; behind a pooler (PgBouncer) that id
 * is the pooler's own, so the server would run the statement on. The marker finds it in the server's own list.
 */
function cancelTimedOut(knex: Knex, state: RequestState, guard: Guard, error: unknown): void {
  if (isKnexTimeout(error)) guard.cancel(knex, marker(state).trimEnd()).catch(() => undefined)
}

const isKnexTimeout = (error: unknown): boolean =>
  typeof error === 'object' &&
  error !== null &&
  (error as { name?: unknown }).name === 'KnexTimeoutError' &&
  typeof (error as { timeout?: unknown }).timeout === 'number'

/**
 * Cancels the statement running on `connection` the way knex's own statement timeout does: from another
 * connection, by the backend's process id (PostgreSQL) or thread id (MySQL).
 */
function cancelOn(knex: Knex, connection: object): void {
  cancelQuery(knex, connection).catch(() => undefined)
}

/** A statement stopped by its time limit or cancelled with its request, as the API error 504 `QUERY_TIMEOUT`. */
export function statementError(error: unknown, dialect: Dialect, statementTimeout: number): unknown {
  if (error instanceof ItemsError || typeof error !== 'object' || error === null) return error
  // knex's own timeout error carries the limit; its pool-acquisition timeout does not, and is not ours.
  if (!isKnexTimeout(error) && !dialect.isCancelled(error)) return error
  return new ItemsError(
    'QUERY_TIMEOUT',
    `The database did not answer within ${statementTimeout} ms, so the request was stopped.`,
    {},
    { cause: error },
  )
}
