// The one owner of knex's private API. knex documents its query builders, `raw`, transactions and events; the
// router also needs parts it does not document: the client's pool, its driver call, how it reads a driver's
// answer, how it cancels a statement, how it marks a connection. Each of them is named here and nowhere else
// (eslint refuses them elsewhere), and spec/knex-adapter.spec.ts pins every assumption made of them, so a knex
// release that changes one fails that spec instead of a request. The peer range in package.json is the range
// that spec passes on.
import type { Knex } from 'knex'

/** A pooled connection as knex marks it. */
export interface PooledConnection {
  readonly __knexUid?: string
  readonly __knexTxId?: string
  /** Set to an error, it makes the pool destroy the connection instead of lending it again. */
  __knex__disposed?: unknown
}

/** A compiled statement as knex's runner hands it to the client: its SQL, values, and how to read its result. */
export interface ClientQuery {
  sql: string
  bindings: unknown[]
  readonly method: string
  options: Record<string, unknown>
  response?: unknown
  /** The columns a write returns, which the client's `processResponse` reads the rows by. */
  readonly returning?: unknown
  /** What the client's `processResponse` answers instead of its own reading (a MySQL RETURNING). */
  readonly output?: (...result: unknown[]) => unknown
}

/** A statement as the client's driver call (`_query`) takes it. */
export interface DriverCall {
  sql: string
  bindings?: readonly unknown[]
  options?: Record<string, unknown>
  response?: unknown
  context?: unknown
}

/** The parts of knex's client the router uses (knex's typings do not describe them). */
interface Client {
  readonly config?: { readonly client?: unknown; readonly postProcessResponse?: unknown }
  readonly driverName?: string
  readonly dialect?: string
  readonly transacting?: boolean
  readonly canCancelQuery?: boolean
  acquireConnection(): Promise<PooledConnection>
  releaseConnection(connection: unknown): Promise<void>
  query(connection: unknown, query: ClientQuery | string): Promise<ClientQuery>
  /** `runner` is `this` for a query's `output`; those the router runs through here do not use it. */
  processResponse(query: ClientQuery, runner: null): unknown
  cancelQuery?(connection: unknown): Promise<unknown>
  _query(connection: unknown, query: DriverCall): Promise<DriverCall>
  emit(event: string, ...args: unknown[]): boolean
}

const clientOf = (knex: Knex): Client => knex.client as unknown as Client

/** A connection of `knex`'s pool, lent until `releaseConnection`; the pool's own timeout error when it has none. */
export const acquireConnection = (knex: Knex): Promise<PooledConnection> => clientOf(knex).acquireConnection()

/** Gives a connection from `acquireConnection` back to the pool. */
export const releaseConnection = (knex: Knex, connection: unknown): Promise<void> => clientOf(knex).releaseConnection(connection)

/** `use` with a connection of `knex`'s pool, which goes back to the pool however `use` ends. */
export async function withConnection<T>(knex: Knex, use: (connection: PooledConnection) => Promise<T>): Promise<T> {
  const connection = await acquireConnection(knex)
  try {
    return await use(connection)
  } finally {
    await releaseConnection(knex, connection)
  }
}

/**
 * Runs `query` on `connection` through the client, as knex's runner does: knex's `query` and `query-error`
 * events fire, the driver call (with any wrapper from `wrapDriverCall`) runs, and the answer comes back with
 * the driver's `response` on it, for `processResponse`. A string runs as it is (BEGIN, COMMIT).
 */
export const clientQuery = (knex: Knex, connection: unknown, query: ClientQuery | string): Promise<ClientQuery> =>
  clientOf(knex).query(connection, query)

/** The answer of a query `clientQuery` ran, as awaiting a builder of its `method` gives it. */
export const processResponse = (knex: Knex, query: ClientQuery): unknown => clientOf(knex).processResponse(query, null)

/** Fires knex's `query-response` event as knex's runner does, for a statement run through `clientQuery`. */
export function emitQueryResponse(knex: Knex, response: unknown, connection: PooledConnection, query: ClientQuery): void {
  clientOf(knex).emit('query-response', response, { __knexUid: connection.__knexUid, __knexTxId: connection.__knexTxId, ...query })
}

/** Marks `connection` for the pool to destroy instead of lending it again, with `reason` as knex's runner does. */
export function disposeConnection(connection: PooledConnection, reason: unknown): void {
  connection.__knex__disposed = reason
}

/** Whether `knex`'s client can cancel a running statement from another connection (PostgreSQL, MySQL). */
export const canCancelQuery = (knex: Knex): boolean => clientOf(knex).canCancelQuery === true

/** Cancels the statement running on `connection` from another connection, as knex's statement timeout does. */
export function cancelQuery(knex: Knex, connection: unknown): Promise<unknown> {
  const client = clientOf(knex)
  return client.cancelQuery ? client.cancelQuery(connection) : Promise.resolve()
}

/** Whether `client` (a builder's, or a knex instance's) is one of knex's transaction clients. */
export const isTransactionClient = (client: unknown): boolean => (client as { transacting?: boolean } | null)?.transacting === true

/** The client of a builder or raw statement: the knex instance's, or its transaction's. */
export const clientOfBuilder = (builder: Knex.QueryBuilder | Knex.Raw): unknown => (builder as unknown as { client: unknown }).client

/** Whether the host set knex's `postProcessResponse`, which expects knex's own results. */
export const postProcessesResponses = (knex: Knex): boolean => clientOf(knex).config?.postProcessResponse !== undefined

/** knex's name of its client: the `client` option, else the client class's driver or dialect name. */
export function clientName(knex: Knex): string | undefined {
  const client = clientOf(knex)
  const configured = client.config?.client
  return typeof configured === 'string' ? configured : (client.driverName ?? client.dialect)
}

/**
 * Wraps the client's driver call: `wrap` receives knex's own call and answers the one that runs every statement
 * of the client from then on. Not those of knex's transactions, which run on a client of their own.
 */
export function wrapDriverCall(
  knex: Knex,
  wrap: (
    knexCall: (connection: object, query: DriverCall) => Promise<DriverCall>,
  ) => (connection: object, query: DriverCall) => Promise<DriverCall>,
): void {
  const client = clientOf(knex)
  client._query = wrap(client._query.bind(client) as (connection: object, query: DriverCall) => Promise<DriverCall>) as Client['_query']
}

/** The pool of a knex client, as tarn (knex's pool) keeps it. */
interface Pool {
  on?(event: 'createSuccess', listener: (id: number, connection: object) => void): void
  readonly free?: readonly { readonly resource: object }[]
  readonly used?: readonly { readonly resource: object }[]
}

/** The clients whose connections get prepared (see `prepareEachConnection`). */
const preparing = new WeakSet<object>()

/**
 * Runs `prepare` on every connection of `knex`'s pool: those the pool holds now, and each new one as the pool
 * creates it (its `createSuccess` event, before the connection is lent). Once per client, whatever the number
 * of calls. false: the pool is not knex's own (a host's `connectionPool`) and tells of no new connection.
 */
export function prepareEachConnection(knex: Knex, prepare: (connection: object) => void): boolean {
  const client = clientOf(knex)
  const pool = (client as { pool?: Pool }).pool
  if (pool?.on === undefined) return false
  if (preparing.has(client)) return true
  preparing.add(client)
  pool.on('createSuccess', (_id, connection) => prepare(connection))
  for (const { resource } of [...(pool.free ?? []), ...(pool.used ?? [])]) prepare(resource)
  return true
}

/**
 * Makes `builder` compile to what `change` makes of its compiled form: how a statement gets text knex cannot
 * build (a MySQL RETURNING) or the router's marker comment. knex compiles through `toSQL` when it runs a builder.
 */
export function changeCompiled<T extends { toSQL(): unknown }>(builder: T, change: (compiled: ReturnType<T['toSQL']>) => void): T {
  const toSQL = builder.toSQL.bind(builder) as () => ReturnType<T['toSQL']>
  builder.toSQL = () => {
    const compiled = toSQL()
    change(compiled)
    return compiled
  }
  return builder
}

/** A waiting acquisition in tarn's queue (knex's pool). */
interface PendingAcquire {
  isRejected: boolean
  reject(error: unknown): void
}

/** The pools whose acquisitions are watched (see `watchAcquisitions`). */
const watchedPools = new WeakSet<object>()

/**
 * Calls `watch` for each connection requested from `knex`'s pool, in the requester's async context, with a
 * `leave` that takes the request out of the pool's queue if it is still waiting there (the acquisition fails
 * with `reason`). One that already holds a connection, or is being handed one, is left alone. Marked rejected
 * first, as tarn marks one that timed out, so tarn never hands it a connection that nobody would give back.
 * false: the pool is not knex's own tarn pool (a host's `connectionPool`).
 */
export function watchAcquisitions(knex: Knex, watch: (leave: (reason: unknown) => void) => void): boolean {
  const pool = (clientOf(knex) as { pool?: { acquire?: () => PendingAcquire; pendingAcquires?: PendingAcquire[] } }).pool
  if (pool === undefined || typeof pool.acquire !== 'function' || !Array.isArray(pool.pendingAcquires)) return false
  if (watchedPools.has(pool)) return true
  watchedPools.add(pool)
  const acquire = pool.acquire.bind(pool)
  pool.acquire = () => {
    const pending = acquire()
    watch((reason) => {
      const queue = pool.pendingAcquires ?? []
      const index = queue.indexOf(pending)
      if (index === -1) return
      queue.splice(index, 1)
      pending.isRejected = true
      pending.reject(reason)
    })
    return pending
  }
  return true
}

/**
 * Sets each of `defaults` that the client's connection settings leave out, for the connections the pool opens
 * from now on (and knex's cancelling connections). false: the settings are not an object the router can add to
 * (a connection string, or a function knex calls for each connection).
 */
export function fillConnectionDefaults(knex: Knex, defaults: Readonly<Record<string, unknown>>): boolean {
  const settings = (clientOf(knex) as { connectionSettings?: unknown }).connectionSettings
  if (typeof settings !== 'object' || settings === null || Array.isArray(settings)) return false
  const own = settings as Record<string, unknown>
  for (const [key, value] of Object.entries(defaults)) if (!(key in own)) own[key] = value
  return true
}

/**
 * Whether `error` is knex's report of a statement past its `.timeout()` that it then failed to cancel, because
 * no connection to cancel it from could be made: "After query timeout of … ms exceeded, cancelling of query failed."
 */
export function isFailedCancellation(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false
  const { timeout, message } = error as { timeout?: unknown; message?: unknown }
  return typeof timeout === 'number' && typeof message === 'string' && message.includes('cancelling of query failed')
}

/** The clients whose connections are checked before each lending (see `checkEachConnection`). */
const checking = new WeakSet<object>()

/**
 * Adds `usable` to the checks the pool makes before it lends a connection (knex's `validateConnection`, after
 * the host's own pool `validate`): a connection it refuses is destroyed and another one lent. Once per client.
 */
export function checkEachConnection(knex: Knex, usable: (connection: object) => boolean): void {
  const client = clientOf(knex) as unknown as { validateConnection(connection: object): unknown }
  if (checking.has(client)) return
  checking.add(client)
  const validate = client.validateConnection.bind(client)
  client.validateConnection = (connection) => usable(connection) && validate(connection)
}
