// The dialect-agnostic ItemsRepository: Query in, SQL through knex, canonical items out. The only stage that
// touches the database. Writes take the transaction they run in (see `transaction`).
import type { Knex } from 'knex'
import { InvalidPayloadError, ItemsError } from '../errors'
import type { FieldNode, Query, Selection } from '../query/query'
import { keysIn, type FilterNode } from '../query/filter-node'
import type { Collection, Field, O2MRelation } from '../schema/collection'
import type { Payload } from '../schema/payload-validator'
import type { Item, PrimaryKey } from '../types'
import type { Dialect } from '../dialects'
import { faultOf, mapDbError } from '../execute/map-db-error'
import { bareTransaction } from '../execute/bare-transaction'
import { DEFAULT_TRANSACTION_ATTEMPTS, retryTransaction } from '../execute/retry-transaction'
import { ItemLoader, keyId, rowKey } from './item-loader'
import { unbounded } from './row-budget'
import { chunk } from '../plan/relation-plans'
import type { Db } from '../execute/db'
import { fromStorage, storedKey, toStorage } from '../dialects/storage'
import { ReadRouting } from '../execute/read-routing'
import { KnownTraits } from '../execute/server-traits'
import { ItemExports } from './item-exports'
import type { KnownKeys, ReturnedRow, ReturningColumns, ScopeOf } from './write-types'
import { ItemInserts, rowOf } from './item-inserts'
import { KeyChecks } from './key-checks'
import { keyChunks, whereExactKey, whereKeys } from './where-keys'
import { compileFilter } from '../sql/compile-filter'
import { OWN_VALUES } from '../sql/value-slots'
import { keyComponents, keyOfValues } from '../schema/item-key'
import { OneItemUpdate } from './one-item-update'
import { ItemCounts } from './item-counts'

export type { KnownKeys, ReturnedRow, ReturningColumns, ScopeOf } from './write-types'

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

/** What `create` wrote: the keys in order, and the rows as written when it was asked to return them. */
export interface Created {
  readonly keys: PrimaryKey[]
  readonly rows: ReturnedRow[] | null
}

/** Whether a filter compares the row's own columns only: no relation, no function, so an UPDATE can hold it. */
const onRowOnly = (node: FilterNode): boolean =>
  node.kind === 'comparison' || ((node.kind === 'and' || node.kind === 'or') && node.children.every(onRowOnly))

const noneKnown: KnownKeys = () => undefined

/** A child of a one-to-many, with its parent's key. */
export interface Child {
  readonly key: PrimaryKey
  readonly parent: PrimaryKey
}
const everyRow: ScopeOf = () => null

export class ItemsRepository {
  private readonly loader: ItemLoader
  /** The one-item UPDATEs (see `updateWithin`), kept as templates. */
  private readonly oneItemUpdate: OneItemUpdate
  private readonly counts: ItemCounts

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
    maxLoadedRows = Number.POSITIVE_INFINITY,
    /** Attempts a colliding write transaction gets (`transactionAttempts`). */
    private readonly transactionAttempts = DEFAULT_TRANSACTION_ATTEMPTS,
    /** What each server supports where servers of the dialect differ, learnt in the router's ready gate. */
    readonly traits = new KnownTraits(dialect),
  ) {
    this.routing = routing instanceof ReadRouting ? routing : new ReadRouting(routing)
    this.knex = this.routing.primary
    this.loader = new ItemLoader(this.knex, dialect, maxLoadedRows)
    this.oneItemUpdate = new OneItemUpdate(this.loader, dialect)
    this.counts = new ItemCounts(this.loader.statements, dialect)
    this.exports = new ItemExports(this.loader, dialect, () => this.reads(), maxLoadedRows)
    this.inserts = new ItemInserts(dialect)
    this.keyChecks = new KeyChecks(this.loader, dialect)
  }

  /** The jobs beside reads and writes, one file each. */
  private readonly keyChecks: KeyChecks
  private readonly inserts: ItemInserts
  private readonly exports: ItemExports

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
    if (totalCount) meta.total_count = await this.counts.count(this.reads(), collection, query.scope, null)
    if (filterCount) meta.filter_count = await this.counts.count(this.reads(), collection, query.filter, query.search)
    if (totalCountEstimate) meta.total_count_estimate = await this.counts.estimate(this.reads(), collection, query.scope)
    return { items, meta, last }
  }

  /** The items of a list in chunks, each one statement (see item-exports.ts). */
  streamItems(collection: Collection, query: Query): AsyncGenerator<Item[], void, undefined> {
    return this.exports.streamItems(collection, query)
  }

  /** A list of plain fields as arrays of values, in chunks; null where it cannot be read so (see item-exports.ts). */
  streamArrays(collection: Collection, query: Query): AsyncGenerator<unknown[][], void, undefined> | null {
    return this.exports.streamArrays(collection, query)
  }

  /** An export's CSV lines as the database writes them; null where it cannot (see item-exports.ts). */
  copyCsv(collection: Collection, query: Query): Promise<AsyncGenerator<Buffer | unknown[][], void, undefined> | null> {
    return this.exports.copyCsv(collection, query)
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
   * a race for a fixed key to another server's, and the next attempt sees the winner's row. A create that let
   * the database draw a key asks for it too (as a function: whether the failed attempt drew one): a key drawn
   * just before another create inserted the same key explicitly is taken, and the next draw is past it.
   * With `bare`, which a caller may ask for only when none of the host's code (a hook's `meta.db`) receives the
   * transaction, a transaction without a lock runs as a bare one (see bare-transaction.ts).
   * Database errors become the API's errors.
   */
  async transaction<T>(
    collection: Collection,
    work: (trx: Db) => Promise<T>,
    options: { lock?: string; retryDuplicateKey?: boolean | (() => boolean); bare?: boolean } = {},
  ): Promise<T> {
    const { lock, retryDuplicateKey = false, bare = false } = options
    const run = (): Promise<T> => {
      if (lock !== undefined) return this.dialect.lockedTransaction(this.knex, lock, work)
      return bare ? bareTransaction(this.knex, work) : this.knex.transaction(work)
    }
    try {
      return await retryTransaction(this.dialect, this.transactionAttempts, run, this.duplicateKeyRetry(collection, retryDuplicateKey))
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
    await this.keyChecks.checkReferences(trx, collection, payloads, visible, known)
    // Such a table's rows are read back after the write (ServerTraits.readsBack): its INSERT has no RETURNING.
    const readsBack = this.traits.of(this.knex).readsBack.has(collection.table)
    const { keys, rows } = await this.inserts.insert(trx, collection, payloads, returning, readsBack)
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
    await this.keyChecks.checkReferences(
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
  async oneStatement<T>(collection: Collection, work: (db: Db) => Promise<T>, retryDuplicateKey = false): Promise<T> {
    if (!this.traits.of(this.knex).autocommits) return this.transaction(collection, work, { bare: true, retryDuplicateKey })
    try {
      return await retryTransaction(
        this.dialect,
        this.transactionAttempts,
        () => work(this.knex),
        this.duplicateKeyRetry(collection, retryDuplicateKey),
      )
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
    return this.oneItemUpdate.run(db, collection, key, payload, scope, returns ? answer : null, answer)
  }

  /**
   * Deletes the item with `key` if it lies within `scope` (plain conditions on the row only), in one statement;
   * answers whether it did. False also where this cannot be tried: a relational scope, or items of other
   * collections that may still reference it (`restrictedBy`, checked first on the long way).
   */
  async deleteWithin(db: Db, collection: Collection, key: PrimaryKey, scope: FilterNode | null): Promise<boolean> {
    if ((scope !== null && !onRowOnly(scope)) || collection.restrictedBy.length > 0) return false
    const qb = whereExactKey(db(collection.table), collection, storedKey(collection, key, this.dialect), this.dialect)
    if (scope !== null) compileFilter(qb, scope, this.dialect, collection.table, OWN_VALUES)
    return (await qb.delete()) > 0
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
  itemsOfReturned(collection: Collection, fields: readonly FieldNode[], rows: readonly ReturnedRow[]): Promise<Item[]> {
    return this.loader.itemsOfReturned(this.reads(), collection, fields, rows)
  }

  /**
   * Writes `payload` to the item only while `field` still holds `expected` (null: is null), in one statement;
   * answers whether it did. Lets a read-modify-write detect a concurrent writer instead of losing its change.
   */
  async updateIf(collection: Collection, key: PrimaryKey, field: Field, expected: unknown, payload: Payload): Promise<boolean> {
    const qb = whereKeys(this.knex(collection.table), collection, [key], this.dialect)
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
    await this.keyChecks.checkUnreferenced(trx, collection, keys)
    for (const part of keyChunks(collection, keys, this.dialect)) {
      await whereKeys(trx(collection.table), collection, part, this.dialect).delete()
    }
  }

  /**
   * Checks keys a write names: a key without an item within `visible` is a 404, as if missing, and one within
   * it but outside `allowed` a 403 (null: no limit). See key-checks.ts.
   */
  checkKeys(
    db: Db,
    collection: Collection,
    keys: readonly PrimaryKey[],
    visible: FilterNode | null = null,
    allowed: FilterNode | null = null,
  ): Promise<void> {
    return this.keyChecks.checkKeys(db, collection, keys, visible, allowed)
  }

  /** The keys of the items the selection matches (at most `maxBatchSize`, else 400). */
  async findKeys(db: Db, collection: Collection, selection: Selection): Promise<PrimaryKey[]> {
    const { maxBatchSize } = collection.limits
    // One row more than the batch limit tells an over-large match apart without counting.
    const limit = selection.limit === null ? maxBatchSize + 1 : Math.min(selection.limit, maxBatchSize + 1)
    const keyFields: FieldNode[] = collection.key.map((field) => ({ kind: 'field', output: field.name, field }))
    const items = await this.loader.load(db, collection, keyFields, { ...selection, limit }, unbounded())
    if (items.length > maxBatchSize) {
      throw new InvalidPayloadError(`The query matches more than ${maxBatchSize} items, the most one request may change`)
    }
    return items.map((item) => keyOfValues(collection, (field) => item[field.name]))
  }

  /**
   * The children of `parents` through `relation`, each with its parent's key: the rows a nested write may
   * detach. More than `max` is a 400 (nested rows count toward `maxBatchSize`). One statement per chunk of parents.
   */
  async childrenOf(trx: Db, relation: O2MRelation, parents: readonly PrimaryKey[], max: number): Promise<Child[]> {
    const { related } = relation
    const fk = relation.foreignKey
    const children: Child[] = []
    for (const part of chunk(parents, this.dialect.maxParameters)) {
      const rows = (await trx(related.table)
        .select([...new Set([...related.key.map((field) => field.column), fk.column])])
        .whereIn(
          fk.column,
          part.map((key) => toStorage(fk, key, this.dialect)),
        )
        .limit(max + 1 - children.length)) as Record<string, unknown>[]
      for (const row of rows) {
        const key = rowKey(related, row, this.dialect)
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
    // A composite key locks by its first field: every row sharing it, a superset, in the same order everywhere.
    const firsts = collection.key.length === 1 ? keys : keys.map((key) => keyComponents(collection, key)[0] as PrimaryKey)
    for (const part of chunk(firsts, this.dialect.maxParameters)) {
      await this.dialect.lockRows(
        trx,
        collection.table,
        pk.column,
        part.map((key) => toStorage(pk, key, this.dialect)),
      )
    }
  }

  /** The `alsoRetry` of `retryTransaction` for a write that asked to run again when its primary key was taken. */
  private duplicateKeyRetry(collection: Collection, retry: boolean | (() => boolean)): ((error: unknown) => boolean) | undefined {
    if (retry === false) return undefined
    return (error) => (retry === true || retry()) && this.isDuplicateKey(error, collection)
  }

  /** Whether a driver error says an insert's primary key is already taken. */
  private isDuplicateKey(error: unknown, collection: Collection): boolean {
    if (typeof error !== 'object' || error === null) return false
    const recognised = this.dialect.recogniseError(error, collection)
    if (recognised?.code !== 'RECORD_NOT_UNIQUE' || recognised.field === undefined) return false
    // A composite key's error names one of its fields (MySQL's, the first).
    return collection.key.some((field) => recognised.field === field.column || recognised.field === field.name)
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

  private withKeys(collection: Collection, keys: readonly PrimaryKey[], filter: FilterNode | null): FilterNode {
    const byKey = keysIn(collection, keys)
    return filter ? { kind: 'and', children: [byKey, filter] } : byKey
  }

  private async updateKeys(trx: Db, collection: Collection, set: UpdateSet): Promise<void> {
    const row = this.toRow(set.payload)
    if (Object.keys(row).length === 0) return
    for (const part of keyChunks(collection, set.keys, this.dialect)) {
      await whereKeys(trx(collection.table), collection, part, this.dialect).update(row)
    }
  }

  private toRow(payload: Payload): Record<string, unknown> {
    return rowOf(payload, this.dialect)
  }
}
