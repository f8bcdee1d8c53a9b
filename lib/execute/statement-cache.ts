// Prepared-statement reuse (the `preparedStatements` option): the router's statements of one SQL text, which
// differ only in their bound values, run through a statement the connection prepared once. The dialect says how
// (see Dialect.statementReuse); this module keeps the statements per connection, bounded, and knows which
// connections a request's statements are running on, so that an unmarked request can still be cancelled.
import type { Knex } from 'knex'
import { currentRequest, ScopeSlot, type RequestScope, type ScopeSetup } from '../request-scope'
import type { Dialect, DriverQuery, StatementReuse } from '../dialects'
import { StatementCache } from '../dialects/kept-statements'

type RunQuery = (connection: object, query: DriverQuery) => Promise<DriverQuery>
interface DriverClient {
  _query: RunQuery
}

/** Per knex client: the statements each of its connections keeps. */
const clients = new WeakMap<object, WeakMap<object, StatementCache>>()
/** How the request's router reuses statements, when it does. */
const reusing = new ScopeSlot<StatementReuse>('reusing')
/** The connections an unmarked request's statements are running on right now. */
const running = new ScopeSlot<Set<object>>('running')

/** The statements `connection` keeps (for the specs: that they stay bounded). */
export function keptOn(knex: Knex, connection: object): StatementCache | undefined {
  return clients.get(knex.client as object)?.get(connection)
}

/** The connections the request's unmarked statements are running on (see statement-guard.ts's cancellation). */
export function runningConnections(scope: RequestScope): ReadonlySet<object> {
  return running.get(scope) ?? new Set()
}

/**
 * Whether a statement of the request goes without the marker comment, since a reused statement must keep its
 * text. Statements inside knex's transactions are not reused: knex runs them through a client of its own, which
 * this module does not wrap. A bare transaction (bare-transaction.ts) runs on the knex's own client, so its
 * statements are reused like any other.
 */
export function unmarked(scope: RequestScope, client: { transacting?: boolean }): boolean {
  return reusing.get(scope)?.unmarked === true && client.transacting !== true
}

/**
 * Wraps the knex client's driver call once, so that a statement run inside a request of a reusing router goes
 * through the dialect's reuse.
 */
function install(knex: Knex): void {
  const client = knex.client as DriverClient
  if (clients.has(client)) return
  const connections = new WeakMap<object, StatementCache>()
  clients.set(client, connections)
  const knexQuery = client._query.bind(client)
  // Not async: it runs for every statement, and only the tracked case needs to wait (see is-promise-like.ts).
  client._query = (connection, query) => {
    const scope = currentRequest()
    const strategy = scope && reusing.get(scope)
    if (scope === undefined || strategy === undefined) return knexQuery(connection, query)
    let kept = connections.get(connection)
    if (kept === undefined) connections.set(connection, (kept = new StatementCache(strategy.evicts)))
    const run = (): Promise<DriverQuery> => strategy.run(query, connection, kept, (again) => knexQuery(connection, again))
    return strategy.unmarked ? tracked(scope, connection, run) : run()
  }
}

/** Runs an unmarked statement with its connection among the request's running ones, for cancellation. */
async function tracked(scope: RequestScope, connection: object, run: () => Promise<DriverQuery>): Promise<DriverQuery> {
  let active = running.get(scope)
  if (active === undefined) running.set(scope, (active = new Set()))
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
 * The request scope's setup that runs its statements through kept statements (see Dialect.statementReuse);
 * null when the router does not reuse them.
 */
export function reuseStatements(instances: readonly Knex[], dialect: Dialect, enabled: boolean): ScopeSetup | null {
  const strategy = dialect.statementReuse
  if (!enabled || strategy === null) return null
  for (const knex of instances) install(knex)
  return (_req, scope) => reusing.set(scope, strategy)
}
