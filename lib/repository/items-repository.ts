// The dialect-agnostic ItemsRepository: Query in, SQL through knex, canonical items out. The only stage that
// touches the database. Writes take the transaction they run in (see `transaction`).
import { randomUUID } from 'node:crypto'
import type { Knex } from 'knex'
import { ForbiddenError, InvalidPayloadError, ItemsError, NotFoundError } from '../errors'
import type { FieldNode, Query, Search, Selection } from '../query/query'
import { fieldIn, type FilterNode } from '../query/filter-node'
import type { Collection, Field, O2MRelation } from '../schema/collection'
import type { Payload } from '../schema/payload-validator'
import type { Item, PrimaryKey } from '../types'
import type { Dialect } from '../dialects'
import { faultOf, mapDbError } from '../execute/map-db-error'
import { bareTransaction, onOneConnection, pinnedTo } from '../execute/bare-transaction'
import { DEFAULT_TRANSACTION_ATTEMPTS, retryTransaction } from '../execute/retry-transaction'
import { inKnexTransaction, runBuilder } from '../execute/run-statement'
import { chunk, ItemLoader, keyId, unbounded } from './item-loader'
import type { Db } from '../execute/db'
import { columnValue, fromStorage, toStorage } from '../sql/storage'
import { compileFilter } from '../sql/compile-filter'
import { boundList, PLANS_KEPT, StatementPlans } from '../sql/statement-plans'
import { Shape } from '../query/query-shape'
import { ReadRouting } from '../execute/read-routing'
import { KnownTraits } from '../execute/server-traits'
import { requestLimits } from '../execute/statement-guard'
import { streamPieces, streamRows, type ChunkLoader, type PieceLoader } from './row-stream'

/**
 * Rows per statement of an export whose CSV the database writes: its text is a few times smaller than the same
 * rows as items, so a chunk this long holds about as much memory as one of `Dialect.exportChunkRows` items.
 */
const COPY_CHUNK_ROWS = 10_000

export interface PageMeta {
  total_count?: number
  filter_count?: number
  total_count_estimate?: number
}

export interface Page {
  readonly items: Item[]
  readonly meta?: PageMeta
  /**
   * With `meta.nextCursor`: the sort keys of the page's last item when a next page may exist (the page is full),
   * else null.
   */
  readonly last?: readonly unknown[] | null
}

/** Items that get the same changes. */
export interface UpdateSet {
  readonly keys: readonly PrimaryKey[]
  readonly payload: Payload
}

/** Columns a write's RETURNING selects (see ItemsRepository.returningColumns). */
export type ReturningColumns = (string | Knex.Raw)[]
/** A written row as RETURNING answered it, for `shapeReturned`. */
export type ReturnedRow = Record<string, unknown>

/** What `create` wrote: the keys in order, and the rows as written when it was asked to return them. */
export interface Created {
  readonly keys: PrimaryKey[]
  readonly rows: ReturnedRow[] | null
}

/** One inserted item: its key, and its row when the INSERT returned it. */
interface Inserted {
  readonly key: PrimaryKey
  readonly row?: ReturnedRow
}

/** How the keys of a multi-row INSERT are learnt: RETURNING, or counted from the first (see Dialect.insertKeyStep). */
type BatchKeys = 'returning' | { readonly step: number }

/** Whether two payloads set the same fields (in any order: knex lines a multi-row INSERT's columns up by name). */
function sameFields(a: Payload, b: Payload): boolean {
  if (a.size !== b.size) return false
  for (const field of b.keys()) if (!a.has(field)) return false
  return true
}

/** Whether a filter compares the row's own columns only: no relation, no function, so an UPDATE can hold it. */
const onRowOnly = (node: FilterNode): boolean =>
  node.kind === 'comparison' || ((node.kind === 'and' || node.kind === 'or') && node.children.every(onRowOnly))

/** The rows of a collection a caller may see (SchemaView.scope); null: every row. */
export type ScopeOf = (collection: Collection) => FilterNode | null

/**
 * The keys of each collection a write already knows to exist (as key ids): a nested write's own new and checked
 * items, which its many-to-one values need not look up again.
 */
export type KnownKeys = (collection: Collection) => ReadonlySet<string> | undefined

const noneKnown: KnownKeys = () => undefined

/** A child of a one-to-many, with its parent's key. */
export interface Child {
  readonly key: PrimaryKey
  readonly parent: PrimaryKey
}
const everyRow: ScopeOf = () => null

/** The selection of an export's chunk of at most `limit` items after `after` (null: the export's first chunk). */
const chunkOf = (query: Query, after: readonly unknown[] | null, limit: number): Selection => ({
  ...query,
  after: after ?? query.after ?? null,
  offset: after === null ? query.offset : 0,
  limit,
})

/** The fields of a list that reads plain columns only (no aggregate, relation or function); null otherwise. */
function plainFields(query: Query): Field[] | null {
  if (query.aggregate) return null
  const fields = query.fields.flatMap((node) => (node.kind === 'field' ? [node.field] : []))
  return fields.length === query.fields.length ? fields : null
}

export class ItemsRepository {
  private readonly loader: ItemLoader
  /** The kept shapes of the one-item UPDATEs (see `updateWithin`). */
  private readonly writes: StatementPlans

  private readonly knex: Knex
  private readonly routing: ReadRouting

  /**
   * `routing` (or a bare knex: no replica) names the primary, which every write and transaction uses, and where
   * untransacted reads run (see read-routing.ts): the methods below that take no `db` ask it per statement.
   */
  constructor(
    routing: ReadRouting | Knex,
    private readonly dialect: Dialect,
    /** Most rows one read may load across its statements (`maxLoadedRows`); for an export, each chunk's. */
    private readonly maxLoadedRows = Number.POSITIVE_INFINITY,
    /** Attempts a colliding write transaction gets (`transactionAttempts`). */
    private readonly transactionAttempts = DEFAULT_TRANSACTION_ATTEMPTS,
    /** What each server supports where servers of the dialect differ, learnt in the router's ready gate. */
    readonly traits = new KnownTraits(dialect),
  ) {
    this.routing = routing instanceof ReadRouting ? routing : new ReadRouting(routing)
    this.knex = this.routing.primary
    this.loader = new ItemLoader(this.knex, dialect, maxLoadedRows)
    this.writes = new StatementPlans((result) => dialect.rawRows(result), PLANS_KEPT, !this.loader.postProcesses)
  }

  /** Where a read outside a transaction runs: the replica for read requests when there is one. */
  private reads(): Knex {
    return this.routing.reader()
  }

  /** One page of items, with the counts `query.meta` asks for. */
  async list(collection: Collection, query: Query): Promise<Page> {
    const { aggregate } = query
    let last: readonly unknown[] | null | undefined
    let items: Item[]
    if (aggregate) items = await this.loader.aggregate(this.reads(), collection, { ...query, aggregate })
    else if (query.meta.nextCursor) {
      const page = await this.loader.loadKeyed(this.reads(), collection, query.fields, query)
      items = page.items
      last = query.limit !== null && items.length >= query.limit ? page.last : null
    } else items = await this.loader.load(this.reads(), collection, query.fields, query)
    const { totalCount, filterCount, totalCountEstimate } = query.meta
    if (!totalCount && !filterCount && !totalCountEstimate) return { items, last }
    const meta: PageMeta = {}
    if (totalCount) meta.total_count = await this.count(collection, query.scope, null)
    if (filterCount) meta.filter_count = await this.count(collection, query.filter, query.search)
    if (totalCountEstimate) meta.total_count_estimate = await this.estimateCount(collection, query.scope)
    return { items, meta, last }
  }

  /**
   * The items of a list, in chunks of at most `Dialect.exportChunkRows` (and `maxLoadedRows`) items: each chunk one
   * statement starting after the previous chunk's last row, relations loaded for its items only (see
   * row-stream.ts). The rows are read as each chunk runs, not from one snapshot.
   */
  streamItems(collection: Collection, query: Query): AsyncGenerator<Item[], void, undefined> {
    const load: ChunkLoader = (after, limit) => this.loader.loadKeyed(this.reads(), collection, query.fields, chunkOf(query, after, limit))
    return streamRows(load, query.limit, Math.min(this.dialect.exportChunkRows, this.maxLoadedRows))
  }

  /**
   * The items of a list of plain fields (no relation or function) as arrays of their values in the order of
   * `query.fields`, in chunks as `streamItems` reads them, where the loader reads arrays (ItemLoader.readsArrays):
   * a CSV export needs no item objects. null otherwise.
   */
  streamArrays(collection: Collection, query: Query): AsyncGenerator<unknown[][], void, undefined> | null {
    const fields = plainFields(query)
    if (fields === null || !this.loader.readsArrays) return null
    const load: ChunkLoader<unknown[]> = (after, limit) =>
      this.loader.loadArrays(this.reads(), collection, fields, chunkOf(query, after, limit))
    return streamRows(load, query.limit, Math.min(this.dialect.exportChunkRows, this.maxLoadedRows))
  }

  /**
   * The CSV lines of an export as the database writes them (Dialect.csvCopy), in chunks of `COPY_CHUNK_ROWS`
   * rows, each read as `streamItems` reads its own; a chunk holding a value only the router spells right comes
   * as arrays instead (see `streamArrays`), for the router's writer. null where the database cannot write the
   * lines as the router would: another dialect, an aggregate, a relation or function among the fields, a column
   * type or session setting the cells do not know, a host that post-processes knex's responses.
   */
  async copyCsv(collection: Collection, query: Query): Promise<AsyncGenerator<Buffer | unknown[][], void, undefined> | null> {
    const copy = this.dialect.csvCopy
    const fields = plainFields(query)
    // A host that post-processes knex's responses would get the raw results of the probes where it expects rows.
    if (copy === null || fields === null || !this.loader.readsArrays) return null
    const db = this.reads()
    const values = fields.map((field) => columnValue(field, `${collection.table}.${field.column}`, this.dialect))
    const types = await copy.columnTypes(
      db,
      db(collection.table).select(values.map(({ sql, bindings }) => this.knex.raw(sql, [...bindings]))),
    )
    const cells = types && copy.cells(fields.map((field, index) => ({ field, value: values[index]!, type: types[index]! })))
    if (!cells) return null
    const known = new Map<string, readonly string[]>()
    const load: PieceLoader<Buffer | unknown[][]> = async (after, limit) => {
      const selection = chunkOf(query, after, limit)
      try {
        // One snapshot for both statements: the chunk ends at the row its boundary names, whatever commits meanwhile.
        return await db.transaction(
          async (trx) => {
            const boundary = { ...selection, offset: selection.offset + limit - 1, limit: 1 }
            const { last } = await this.loader.loadKeyed(trx, collection, [], boundary)
            return {
              piece: await copy.copy(trx, this.loader.csvStatement(trx, collection, selection, cells), known, requestLimits()),
              boundary: last,
            }
          },
          { isolationLevel: 'repeatable read', readOnly: true },
        )
      } catch (error) {
        if (!copy.needsWriter(error)) throw error
        const { items, last } = await this.loader.loadArrays(db, collection, fields, selection)
        return { piece: items, boundary: items.length < limit ? null : last }
      }
    }
    return streamPieces(load, query.limit, Math.min(COPY_CHUNK_ROWS, this.maxLoadedRows))
  }

  /**
   * The rows within `scope` as the planner estimates them, where the dialect asks one; else counted. The
   * estimate covers the same rows as `total_count` (the caller's scope applies), so it tells no more than that.
   */
  private async estimateCount(collection: Collection, scope: FilterNode | null): Promise<number> {
    const estimate = this.dialect.estimateRows
    if (estimate === null) return this.count(collection, scope, null)
    const qb = this.reads()(collection.table).select(this.knex.raw('1'))
    const joins = this.loader.countJoins(collection)
    this.loader.where(qb, collection, { filter: scope, search: null }, joins)
    joins.applyTo(qb)
    return (await estimate(this.reads(), qb)) ?? this.count(collection, scope, null)
  }

  /** The item with `key`, if it exists and matches the query's filter (its scope included) and search. */
  async readOne(collection: Collection, key: PrimaryKey, query: Query): Promise<Item | null> {
    const filter = this.withKeys(collection, [key], query.filter)
    // A `cursor` places pages in a list; one item by key has no place to start after.
    const selection = { ...query, filter, limit: 1, offset: 0, after: null }
    const db = this.reads()
    const { foldedKeys } = this.traits.of(db)
    const [item] = await this.loader.load(db, collection, query.fields, selection, undefined, { key, foldedKeys })
    return item ?? null
  }

  /** The items with these keys within `scope`, in the order of `keys`; keys without such an item are skipped. */
  readByKeys(
    collection: Collection,
    keys: readonly PrimaryKey[],
    fields: readonly FieldNode[],
    scope: FilterNode | null = null,
    db: Db = this.reads(),
  ): Promise<Item[]> {
    return this.readKeyed(collection, keys, fields, scope, db).then((keyed) => keyed.map(({ item }) => item))
  }

  /** As `readByKeys`, each item beside its key: for callers whose `fields` may leave the key out. */
  async readKeyed(
    collection: Collection,
    keys: readonly PrimaryKey[],
    fields: readonly FieldNode[],
    scope: FilterNode | null = null,
    db: Db = this.reads(),
  ): Promise<{ key: PrimaryKey; item: Item }[]> {
    const byKey = await this.loader.byKeys(db, collection, [...new Set(keys)], fields, scope)
    return keys.flatMap((key) => {
      const item = byKey.get(keyId(key))
      return item === undefined ? [] : [{ key, item }]
    })
  }

  /**
   * Runs `work` in one transaction: all of it lands or none. A transaction the database rolls back for
   * colliding with others runs again from the start (see retry-transaction.ts), so `work` must not keep
   * state between attempts. With `lock`, no other transaction with the same lock name runs at the same time.
   * With `retryDuplicateKey`, an insert refused because its primary key is taken runs again too: the lock
   * only binds one server (MySQL's GET_LOCK is local to a Galera node), so a create under it may still lose
   * a race for a fixed key to another server's, and the next attempt sees the winner's row.
   * With `bare`, which a caller may ask for only when none of the host's code (a hook's `meta.db`) receives the
   * transaction, a transaction without a lock runs as a bare one (see bare-transaction.ts).
   * Database errors become the API's errors.
   */
  async transaction<T>(
    collection: Collection,
    work: (trx: Db) => Promise<T>,
    options: { lock?: string; retryDuplicateKey?: boolean; bare?: boolean } = {},
  ): Promise<T> {
    const { lock, retryDuplicateKey = false, bare = false } = options
    const run = (): Promise<T> => {
      if (lock !== undefined) return this.dialect.lockedTransaction(this.knex, lock, work)
      return bare ? bareTransaction(this.knex, work) : this.knex.transaction(work)
    }
    try {
      return await retryTransaction(
        this.dialect,
        this.transactionAttempts,
        run,
        retryDuplicateKey ? (error) => this.isDuplicateKey(error, collection) : undefined,
      )
    } catch (error) {
      throw mapDbError(error, collection, this.dialect)
    }
  }

  /**
   * Creates the items in order; answers their primary keys, and with `returning` (see `returningColumns`) the
   * rows as written. `visible` gives the rows of each collection the writer may reference (see
   * `checkReferences`).
   */
  async create(
    trx: Db,
    collection: Collection,
    payloads: readonly Payload[],
    visible: ScopeOf = everyRow,
    returning: ReturningColumns | null = null,
    known: KnownKeys = noneKnown,
  ): Promise<Created> {
    await this.checkReferences(trx, collection, payloads, visible, known)
    const keys: PrimaryKey[] = []
    const rows: ReturnedRow[] = []
    // Such a table's rows are read back after the write (ServerTraits.readsBack): its INSERT has no RETURNING.
    const readsBack = this.traits.of(this.knex).readsBack.has(collection.table)
    const batchKeys = payloads.length > 1 && !readsBack ? await this.batchKeys(trx, returning) : null
    for (const run of this.insertRuns(collection, payloads, batchKeys !== null)) {
      // Runs are of one row where the keys of a multi-row INSERT cannot be learnt (batchKeys null).
      const inserted =
        run.length === 1 || batchKeys === null
          ? [await this.insert(trx, collection, run[0]!, readsBack ? null : returning, readsBack)]
          : await this.insertMany(trx, collection, run, batchKeys, returning)
      for (const { key, row } of inserted) {
        keys.push(key)
        if (row !== undefined) rows.push(row)
      }
    }
    const pk = collection.primaryKey
    if (pk.autoIncrement && this.dialect.syncAutoIncrement && payloads.some((payload) => payload.get(pk) != null)) {
      await this.dialect.syncAutoIncrement(trx, collection.table, pk.column)
    }
    return { keys, rows: returning !== null && rows.length === keys.length ? rows : null }
  }

  /** Applies each set's payload to its keys (checked beforehand with `checkKeys`). */
  async update(
    trx: Db,
    collection: Collection,
    sets: readonly UpdateSet[],
    visible: ScopeOf = everyRow,
    known: KnownKeys = noneKnown,
  ): Promise<void> {
    await this.checkReferences(
      trx,
      collection,
      sets.map((set) => set.payload),
      visible,
      known,
    )
    for (const set of sets) await this.updateKeys(trx, collection, set)
  }

  /**
   * Runs a write that is one statement on its own, retried and its errors mapped as `transaction` does. One
   * statement is atomic by itself. BEGIN and COMMIT around it would cost two round trips and make nothing safer:
   * a connection lost in the one round trip that commits (this statement's, or else COMMIT's) leaves the outcome
   * unknown either way, and one lost in any other round trip of a transaction fails a write the client must send
   * again all the same. Where a statement does not commit by itself (ServerTraits.autocommits), it keeps them.
   */
  async oneStatement<T>(collection: Collection, work: (db: Db) => Promise<T>): Promise<T> {
    if (!this.traits.of(this.knex).autocommits) return this.transaction(collection, work, { bare: true })
    try {
      return await retryTransaction(this.dialect, this.transactionAttempts, () => work(this.knex))
    } catch (error) {
      throw mapDbError(error, collection, this.dialect)
    }
  }

  /**
   * Whether creating or updating one item with `payload` is a single statement: no many-to-one value to check
   * first (`checkReferences`), no key sequence to move after an explicit key (`syncAutoIncrement`), and something
   * to write.
   */
  writesInOneStatement(collection: Collection, payload: Payload): boolean {
    const pk = collection.primaryKey
    if (payload.size === 0) return false
    if (pk.autoIncrement && this.dialect.syncAutoIncrement !== null && payload.get(pk) != null) return false
    return collection.fields.every((field) => field.references === undefined || payload.get(field) == null)
  }

  /**
   * Writes `payload` to the item with `key` if it lies within `scope` (plain conditions on the row only; a
   * relational scope is not tried here), in one statement. Answers null when no row changed; else, with `answer`
   * (fields a row can answer, see `readFromRow`), the row as those fields read it, and none without (or when
   * the row is gone by the time it is read).
   */
  updateWithin(
    db: Db,
    collection: Collection,
    key: PrimaryKey,
    payload: Payload,
    scope: FilterNode | null,
    answer: readonly FieldNode[] | null = null,
  ): Promise<ReturnedRow[] | null> {
    if (scope !== null && !onRowOnly(scope)) return Promise.resolve(null)
    const returns = this.dialect.returnsRows && !this.traits.of(this.knex).readsBack.has(collection.table)
    return this.updateOne(db, collection, key, payload, scope, returns ? answer : null, answer)
  }

  /** `updateWithin`, answering from the UPDATE's RETURNING `returned` fields, or reading `answer` back. */
  private updateOne(
    db: Db,
    collection: Collection,
    key: PrimaryKey,
    payload: Payload,
    scope: FilterNode | null,
    returned: readonly FieldNode[] | null,
    answer: readonly FieldNode[] | null,
  ): Promise<ReturnedRow[] | null> {
    const pk = collection.primaryKey
    const row = this.toRow(payload)
    // The key's own row only, as reads and key checks find it: the column's collation may take "A", "a " or "á"
    // for "a" (MySQL's usual ones do). A raw condition: the builder has no exact comparison (see Dialect.exactText).
    const exact = pk.spec.text ? this.dialect.exactText : null
    const where = (qb: Knex.QueryBuilder, boundKey: unknown): Knex.QueryBuilder => {
      qb.where(pk.column, boundKey as Knex.Value)
      if (exact !== null) qb.whereRaw(`?? = ${exact}`, [pk.column, boundKey as Knex.Value])
      if (scope !== null) compileFilter(qb, scope, this.dialect, collection.table)
      return qb
    }
    // Past knex's runner (see run-statement.ts), and chained rather than awaited (see is-promise-like.ts).
    if (returned !== null) {
      const qb = where(db(collection.table), toStorage(pk, key, this.dialect))
        .update(row)
        .returning(this.loader.returningColumns(collection, returned))
      return runBuilder<ReturnedRow[]>(db, qb).then((rows) => (rows.length > 0 ? rows : null))
    }
    // Without RETURNING, the statement's shape is compiled once: the fields it sets, the rule's scope; the key
    // and the values are bound.
    const columns = Object.keys(row)
    const bound = [toStorage(pk, key, this.dialect), ...Object.values(row)]
    const shape = new Shape('update').schema(collection)
    for (const field of payload.keys()) shape.schema(field)
    shape.filter(scope)
    const update = (on: Db): Promise<number> =>
      this.writes.write<number>(
        on,
        shape,
        () => {
          const [boundKey, ...values] = boundList(bound)
          return where(on(collection.table), boundKey).update(Object.fromEntries(columns.map((column, index) => [column, values[index]])))
        },
        bound,
      )
    if (answer === null) return update(db).then((changed) => (changed > 0 ? [] : null))
    // MySQL's UPDATE has no RETURNING (nor a table in ServerTraits.readsBack's): the row is read by its key right after the UPDATE commits, as the answer's
    // read-back would read it, but on the UPDATE's connection, which spares the read one of its own from the pool.
    const readBack = (on: Db): Promise<ReturnedRow[] | null> =>
      update(on).then((changed) => (changed > 0 ? this.loader.rowsByKeys(on, collection, [key], answer) : null))
    return pinnedTo(db) !== undefined || inKnexTransaction(db) ? readBack(db) : onOneConnection(db as Knex, readBack)
  }

  /**
   * The columns a create returns so that it answers with its own rows instead of reading them back, for fields
   * a row can answer (`readFromRow`); null where the database's INSERT returns no rows.
   */
  returningColumns(collection: Collection, fields: readonly FieldNode[]): ReturningColumns | null {
    const known = this.traits.of(this.knex)
    return known.insertReturnsRows && !known.readsBack.has(collection.table) ? this.loader.returningColumns(collection, fields) : null
  }

  /** Rows a write returned (`returningColumns`), as `readByKeys` would answer them; their relations load now. */
  shapeReturned(collection: Collection, fields: readonly FieldNode[], rows: readonly ReturnedRow[]): Promise<Item[]> {
    return this.loader.shapeReturned(this.reads(), collection, fields, rows)
  }

  /**
   * Writes `payload` to the item only while `field` still holds `expected` (null: is null), in one statement;
   * answers whether it did. Lets a read-modify-write detect a concurrent writer instead of losing its change.
   */
  async updateIf(collection: Collection, key: PrimaryKey, field: Field, expected: unknown, payload: Payload): Promise<boolean> {
    const pk = collection.primaryKey
    const qb = this.knex(collection.table).where(pk.column, toStorage(pk, key, this.dialect))
    if (expected === null) qb.whereNull(field.column)
    else qb.where(field.column, toStorage(field, expected, this.dialect))
    try {
      return (await qb.update(this.toRow(payload))) > 0
    } catch (error) {
      throw mapDbError(error, collection, this.dialect)
    }
  }

  /** Deletes the items with these keys. */
  async delete(trx: Db, collection: Collection, keys: readonly PrimaryKey[]): Promise<void> {
    const pk = collection.primaryKey
    await this.checkUnreferenced(trx, collection, keys)
    for (const part of chunk(keys, this.dialect.maxParameters)) {
      await trx(collection.table)
        .whereIn(
          pk.column,
          part.map((key) => toStorage(pk, key, this.dialect)),
        )
        .delete()
    }
  }

  /**
   * Refuses the delete (400 `INVALID_FOREIGN_KEY`, nothing deleted) when a row still references one of `keys`
   * through a many-to-one whose `onDelete` is `noAction` or `restrict`. The database would refuse too where it
   * enforces the key; SQLite does only under `PRAGMA foreign_keys`, which the host may not set. Rows of the
   * same collection that are deleted with it do not count (a subtree deleted at once). One statement per such
   * field and chunk of keys.
   */
  private async checkUnreferenced(trx: Db, collection: Collection, keys: readonly PrimaryKey[]): Promise<void> {
    const pk = collection.primaryKey
    const stored = keys.map((key) => toStorage(pk, key, this.dialect))
    const deleted = new Set(keys.map(keyId))
    for (const field of collection.restrictedBy) {
      const referencing = field.collection
      for (const part of chunk(stored, this.dialect.maxParameters)) {
        let referenced: boolean
        if (referencing === collection) {
          // A row of the batch itself may point at another one; more such rows than keys cannot all be in it.
          const rows = (await trx(referencing.table)
            .select(pk.column)
            .whereIn(field.column, part)
            .limit(keys.length + 1)) as Record<string, unknown>[]
          referenced = rows.some((row) => !deleted.has(keyId(fromStorage(pk, row[pk.column], this.dialect) as PrimaryKey)))
        } else {
          referenced = (await trx(referencing.table).first(field.column).whereIn(field.column, part)) !== undefined
        }
        if (referenced) {
          throw new ItemsError('INVALID_FOREIGN_KEY', 'Invalid foreign key: other items still reference this item.', {
            collection: collection.name,
          })
        }
      }
    }
  }

  /**
   * Checks keys a write names: a key without an item within `visible` is a 404, as if missing, and one within
   * it but outside `allowed` a 403 (null: no limit). One statement, two when `allowed` is set.
   */
  async checkKeys(
    db: Db,
    collection: Collection,
    keys: readonly PrimaryKey[],
    visible: FilterNode | null = null,
    allowed: FilterNode | null = null,
  ): Promise<void> {
    const unique = [...new Set(keys)]
    const found = await this.existingKeys(db, collection, unique, visible)
    const missing = unique.filter((key) => !found.has(keyId(key)))
    if (missing.length > 0) {
      throw new NotFoundError(
        missing.length === 1
          ? `Item "${missing[0]}" not found in "${collection.name}".`
          : `${missing.length} items not found in "${collection.name}".`,
        { collection: collection.name, keys: missing },
      )
    }
    if (allowed === null) return
    const permitted = await this.existingKeys(db, collection, unique, allowed)
    if (unique.some((key) => !permitted.has(keyId(key)))) throw new ForbiddenError()
  }

  /** The keys of the items the selection matches (at most `maxBatchSize`, else 400). */
  async findKeys(db: Db, collection: Collection, selection: Selection): Promise<PrimaryKey[]> {
    const { maxBatchSize } = collection.limits
    // One row more than the batch limit tells an over-large match apart without counting.
    const limit = selection.limit === null ? maxBatchSize + 1 : Math.min(selection.limit, maxBatchSize + 1)
    const pk = collection.primaryKey
    const keyField: FieldNode[] = [{ kind: 'field', output: 'key', field: pk }]
    const items = await this.loader.load(db, collection, keyField, { ...selection, limit }, unbounded())
    if (items.length > maxBatchSize) {
      throw new InvalidPayloadError(`The query matches more than ${maxBatchSize} items, the most one request may change`)
    }
    return items.map((item) => item.key as PrimaryKey)
  }

  /**
   * The children of `parents` through `relation`, each with its parent's key: the rows a nested write may
   * detach. More than `max` is a 400 (nested rows count toward `maxBatchSize`). One statement per chunk of parents.
   */
  async childrenOf(trx: Db, relation: O2MRelation, parents: readonly PrimaryKey[], max: number): Promise<Child[]> {
    const pk = relation.related.primaryKey
    const fk = relation.foreignKey
    const children: Child[] = []
    for (const part of chunk(parents, this.dialect.maxParameters)) {
      const rows = (await trx(relation.related.table)
        .select(pk.column, fk.column)
        .whereIn(
          fk.column,
          part.map((key) => toStorage(fk, key, this.dialect)),
        )
        .limit(max + 1 - children.length)) as Record<string, unknown>[]
      for (const row of rows) {
        const key = fromStorage(pk, row[pk.column], this.dialect) as PrimaryKey
        children.push({ key, parent: fromStorage(fk, row[fk.column], this.dialect) as PrimaryKey })
      }
      if (children.length > max) {
        throw new InvalidPayloadError(
          `The write would detach more than ${max} items of "${relation.related.name}", the most one request may change`,
        )
      }
    }
    return children
  }

  /**
   * The API's error for a driver error that the written values caused in `collection` (a unique, foreign key or
   * NOT NULL refusal), else null. Faults (a lost connection, a deadlock) are not refusals: the transaction
   * retries or maps them.
   */
  refusalOf(error: unknown, collection: Collection): ItemsError | null {
    if (faultOf(error, this.dialect) !== null) return null
    const mapped = mapDbError(error, collection, this.dialect)
    return mapped instanceof ItemsError && mapped !== error ? mapped : null
  }

  /** Locks the items with these keys until `trx` ends (see `Dialect.lockRows`). */
  async lockKeys(trx: Db, collection: Collection, keys: readonly PrimaryKey[]): Promise<void> {
    const pk = collection.primaryKey
    for (const part of chunk(keys, this.dialect.maxParameters)) {
      await this.dialect.lockRows(
        trx,
        collection.table,
        pk.column,
        part.map((key) => toStorage(pk, key, this.dialect)),
      )
    }
  }

  /** Whether a driver error says an insert's primary key is already taken. */
  private isDuplicateKey(error: unknown, collection: Collection): boolean {
    if (typeof error !== 'object' || error === null) return false
    const recognised = this.dialect.recogniseError(error, collection)
    if (recognised?.code !== 'RECORD_NOT_UNIQUE' || recognised.field === undefined) return false
    const pk = collection.primaryKey
    return recognised.field === pk.column || recognised.field === pk.name
  }

  /** The key of the first item within `scope` by primary key (the singleton's row), or null when there is none. */
  async firstKey(collection: Collection, scope: FilterNode | null = null, db: Db = this.reads()): Promise<PrimaryKey | null> {
    const [key] = await this.findKeys(db, collection, {
      filter: scope,
      search: null,
      sort: [{ field: collection.primaryKey, direction: 'asc', path: [] }],
      limit: 1,
      offset: 0,
    })
    return key ?? null
  }

  private async count(collection: Collection, filter: FilterNode | null, search: Search | null): Promise<number> {
    const qb = this.reads()(collection.table).count({ count: '*' })
    const joins = this.loader.countJoins(collection)
    this.loader.where(qb, collection, { filter, search }, joins)
    joins.applyTo(qb)
    const [row] = await qb
    return Number(row!.count)
  }

  private withKeys(collection: Collection, keys: readonly PrimaryKey[], filter: FilterNode | null): FilterNode {
    const byKey = fieldIn(collection.primaryKey, keys)
    return filter ? { kind: 'and', children: [byKey, filter] } : byKey
  }

  /** Which of `keys` name an item of `collection` within `scope`, as key ids. One query per chunk. */
  private async existingKeys(
    db: Db,
    collection: Collection,
    keys: readonly PrimaryKey[],
    scope: FilterNode | null = null,
  ): Promise<Set<string>> {
    return new Set((await this.loader.byKeys(db, collection, [...new Set(keys)], [], scope, unbounded())).keys())
  }

  /**
   * The payloads in order, as runs that one multi-row INSERT can write: consecutive payloads with the same fields
   * (so no row falls back to another's defaults) and no key of their own, within the dialect's row and
   * parameter bounds. Where the dialect has no such INSERT, or keys are given, runs of one.
   */
  private insertRuns(collection: Collection, payloads: readonly Payload[], multiRow: boolean): Payload[][] {
    const pk = collection.primaryKey
    const most = this.dialect.multiRowInsert
    if (most === null || !multiRow || !pk.autoIncrement) return payloads.map((payload) => [payload])
    const runs: Payload[][] = []
    // The payload that set the fields of the last run; null when that run must stay alone.
    let shape: Payload | null = null
    for (const payload of payloads) {
      // An empty payload is all defaults, which a multi-row INSERT cannot spell.
      const alone = payload.size === 0 || payload.get(pk) != null
      const last = runs[runs.length - 1]
      const room = Math.min(most, Math.floor(this.dialect.maxParameters / Math.max(1, payload.size)))
      if (!alone && shape !== null && last !== undefined && sameFields(shape, payload) && last.length < room) last.push(payload)
      else runs.push([payload])
      shape = alone ? null : payload
    }
    return runs
  }

  /**
   * How this transaction learns the keys of a multi-row INSERT: through RETURNING (always, when the INSERT
   * returns the answer's rows), or counted from the first with a step (see Dialect.insertKeyStep); null when it
   * cannot, and each row gets an INSERT of its own.
   */
  private async batchKeys(trx: Db, returning: ReturningColumns | null): Promise<BatchKeys | null> {
    if (this.dialect.multiRowInsert === null) return null
    if (returning !== null || this.dialect.insertKeyStep === null) return 'returning'
    const step = await this.dialect.insertKeyStep(trx)
    return step === null ? null : { step }
  }

  /**
   * Writes payloads with the same fields and database-assigned keys in one INSERT; answers their keys in order,
   * with their rows when the keys come through RETURNING and `returning` is given.
   */
  private async insertMany(
    trx: Db,
    collection: Collection,
    payloads: readonly Payload[],
    batchKeys: BatchKeys,
    returning: ReturningColumns | null,
  ): Promise<Inserted[]> {
    const pk = collection.primaryKey
    const insert = trx(collection.table).insert(payloads.map((payload) => this.toRow(payload)))
    if (batchKeys !== 'returning') {
      const [first] = (await insert) as (number | string)[]
      // BigInt: a bigInteger key may pass 2^53, as its driver value is then a digit string.
      return payloads.map((_, index) => {
        const key = BigInt(first!) + BigInt(index * batchKeys.step)
        return { key: fromStorage(pk, Number.isSafeInteger(Number(key)) ? Number(key) : String(key), this.dialect) as PrimaryKey }
      })
    }
    // `returning` reads the key under the field's name, as every read does; without it, the bare column.
    const keyName = returning === null ? pk.column : pk.name
    const created = (await this.dialect.returningInsert(trx, insert, returning ?? [pk.column])) as ReturnedRow[]
    const inserted = created.map((row) => ({
      key: fromStorage(pk, row[keyName], this.dialect) as number,
      row: returning === null ? undefined : row,
    }))
    return inserted.sort((a, b) => Number(a.key) - Number(b.key))
  }

  /** The row to insert for `payload`, with a uuid key drawn here when it has none; its key when known before. */
  private insertRow(collection: Collection, payload: Payload): { row: Record<string, unknown>; key: PrimaryKey | null } {
    const pk = collection.primaryKey
    const row = this.toRow(payload)
    const given = payload.get(pk) as PrimaryKey | null | undefined
    if (given != null) return { row, key: given }
    if (pk.type !== 'uuid') return { row, key: null }
    const key = randomUUID()
    row[pk.column] = key
    return { row, key }
  }

  /** `readsBack`: the table's INSERT takes no RETURNING (ServerTraits.readsBack), so a new key comes from elsewhere. */
  private async insert(
    trx: Db,
    collection: Collection,
    payload: Payload,
    returning: ReturningColumns | null,
    readsBack = false,
  ): Promise<Inserted> {
    const pk = collection.primaryKey
    const { row, key } = this.insertRow(collection, payload)
    // Past knex's runner (see run-statement.ts).
    const insert = trx(collection.table).insert(row)
    const { insertedKey } = this.dialect
    if (readsBack && key == null && insertedKey !== null) {
      // The sequence's value is the session's: the INSERT and the question about it share a connection.
      const written = async (on: Db): Promise<unknown> => {
        await runBuilder(on, on(collection.table).insert(row))
        return insertedKey(on, collection.table, pk.column)
      }
      const created =
        pinnedTo(trx) !== undefined || inKnexTransaction(trx) ? await written(trx) : await onOneConnection(trx as Knex, written)
      return { key: fromStorage(pk, created, this.dialect) as PrimaryKey }
    }
    if (returning !== null) {
      const [written] = await runBuilder<ReturnedRow[]>(trx, this.dialect.returningInsert(trx, insert, returning))
      return { key: key ?? (fromStorage(pk, written![pk.name], this.dialect) as PrimaryKey), row: written! }
    }
    if (key != null) {
      await runBuilder(trx, insert)
      return { key }
    }
    if (this.dialect.insertReturnsKeyWithReturning) {
      const [created] = await runBuilder<Record<string, unknown>[]>(trx, insert.returning(pk.column))
      return { key: fromStorage(pk, created![pk.column], this.dialect) as PrimaryKey }
    }
    const [id] = await runBuilder<unknown[]>(trx, insert)
    return { key: fromStorage(pk, id, this.dialect) as PrimaryKey }
  }

  private async updateKeys(trx: Db, collection: Collection, set: UpdateSet): Promise<void> {
    const row = this.toRow(set.payload)
    if (Object.keys(row).length === 0) return
    const pk = collection.primaryKey
    for (const part of chunk(set.keys, this.dialect.maxParameters)) {
      await trx(collection.table)
        .whereIn(
          pk.column,
          part.map((key) => toStorage(pk, key, this.dialect)),
        )
        .update(row)
    }
  }

  /**
   * Every many-to-one value written must name an existing item: one query per reference field, before any
   * write. The database's own constraint would catch most, but not SQLite without `PRAGMA foreign_keys` nor
   * tables without constraints, and each driver words it differently; the API answers the same everywhere.
   * A self-reference may name an item that the same batch creates with an explicit key. An item outside
   * `visible` counts as missing, so a write cannot probe for rows the writer may not read.
   */
  private async checkReferences(
    trx: Db,
    collection: Collection,
    payloads: readonly Payload[],
    visible: ScopeOf,
    known: KnownKeys,
  ): Promise<void> {
    const batchKeys = new Set(
      payloads
        .map((payload) => payload.get(collection.primaryKey))
        .filter((key) => key != null)
        .map(keyId),
    )
    for (const field of collection.fields) {
      const related = field.references
      if (related === undefined) continue
      const values = [...new Set(payloads.map((payload) => payload.get(field)).filter((value) => value != null))] as PrimaryKey[]
      const selfReferenced = (value: PrimaryKey): boolean => related === collection && batchKeys.has(keyId(value))
      const checked = known(related)
      const toCheck = values.filter((value) => !selfReferenced(value) && checked?.has(keyId(value)) !== true)
      if (toCheck.length === 0) continue
      const found = await this.existingKeys(trx, related, toCheck, visible(related))
      const missing = toCheck.find((value) => !found.has(keyId(value)))
      if (missing !== undefined) {
        throw new ItemsError(
          'INVALID_FOREIGN_KEY',
          `Invalid foreign key (field "${field.name}"): "${related.name}" has no item ${JSON.stringify(missing)}.`,
          { collection: collection.name, field: field.name, value: missing },
        )
      }
    }
  }

  private toRow(payload: Payload): Record<string, unknown> {
    const row: Record<string, unknown> = {}
    for (const [field, value] of payload) row[field.column] = toStorage(field, value, this.dialect)
    return row
  }
}
