// Prepared-statement reuse (the `preparedStatements` option): the router's statements of one SQL text, which
// differ only in their bound values, run through a statement the connection prepared once. The dialect says how
// (see Dialect.statementReuse); this module keeps the statements per connection, bounded, and knows which
// connections a request's statements are running on, so that an unmarked request can still be cancelled.
import type { Knex } from 'knex'
import { currentRequest, StateSlot, type RequestState, type StateSetup } from '../request-state'
import type { Dialect, DriverQuery, StatementReuse } from '../dialects'
import { StatementCache } from '../dialects/kept-statements'
import { wrapDriverCall } from '../knex-adapter'

/** Per knex client: the statements each of its connections keeps. */
const clients = new WeakMap<object, WeakMap<object, StatementCache>>()
/** How the request's router reuses statements, when it does. */
const reusing = new StateSlot<StatementReuse>('reusing')
/** The connections an unmarked request's statements are running on right now. */
const running = new StateSlot<Set<object>>('running')

/** The statements `connection` keeps (for the specs: that they stay bounded). */
export function keptOn(knex: Knex, connection: object): StatementCache | undefined {
  return clients.get(knex.client as object)?.get(connection)
}

/** The connections the request's unmarked statements are running on (see statement-guard.ts's cancellation). */
export function runningConnections(state: RequestState): ReadonlySet<object> {
  return running.get(state) ?? new Set()
}

/**
 * Whether a statement of the request goes without the marker comment, since a reused statement must keep its
 * text. Statements inside knex's transactions are not reused: knex runs them through a client of its own, which
 * this module does not wrap. A bare transaction (bare-transaction.ts) runs on the knex's own client, so its
 * statements are reused like any other.
 */
export function unmarked(state: RequestState, inTransaction: boolean): boolean {
  return reusing.get(state)?.unmarked === true && !inTransaction
}

/**
 * Wraps the knex client's driver call once, so that a statement run inside a request of a reusing router goes
 * through the dialect's reuse.
 */
function install(knex: Knex): void {
  const client = knex.client as object
  if (clients.has(client)) return
  const connections = new WeakMap<object, StatementCache>()
  clients.set(client, connections)
  // Not async: it runs for every statement, and only the tracked case needs to wait (see is-promise-like.ts).
  wrapDriverCall(knex, (knexQuery) => (connection, query) => {
    const state = currentRequest()
    const strategy = state && reusing.get(state)
    if (state === undefined || strategy === undefined) return knexQuery(connection, query)
    let kept = connections.get(connection)
    if (kept === undefined) connections.set(connection, (kept = new StatementCache(strategy.evicts)))
    const run = (): Promise<DriverQuery> => strategy.run(query, connection, kept, (again) => knexQuery(connection, again))
    return strategy.unmarked ? tracked(state, connection, run) : run()
  })
}

/** Runs an unmarked statement with its connection among the request's running ones, for cancellation. */
async function tracked(state: RequestState, connection: object, run: () => Promise<DriverQuery>): Promise<DriverQuery> {
  let active = running.get(state)
  if (active === undefined) running.set(state, (active = new Set()))
  active.add(connection)
  try {
    return await run()
  } finally {
    active.delete(connection)
  }
}

/** Whether `preparedStatements` is on for this router: the host's choice, else the dialect's default. */
export function reusesStatements(dialect: Dialect, preparedStatements: boolean | undefined): boolean {
  return dialect.statementReuse !== null && (preparedStatements ?? dialect.statementReuse.byDefault)
}

/**
 * The request state's setup that runs its statements through kept statements (see Dialect.statementReuse);
 * null when the router does not reuse them.
 */
export function reuseStatements(instances: readonly Knex[], dialect: Dialect, enabled: boolean): StateSetup | null {
  const strategy = dialect.statementReuse
  if (!enabled || strategy === null) return null
  for (const knex of instances) install(knex)
  return (_req, state) => reusing.set(state, strategy)
}
