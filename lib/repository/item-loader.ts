// Reads items and their relations: one statement for the rows, which over a network also joins the page's own
// many-to-one items where it can, and for one item by key also brings its key lists; then one per other relation
// node of the field tree (batched IN lists, chunked below the driver's parameter limit), never one per row.
import type { Knex } from 'knex'
import type { AggregateQuery, FieldNode, Selection, SortNode } from '../query/query'
import { fieldIn, type FilterNode } from '../query/filter-node'
import { aggregatedItems, aggregateError, aggregateStatement } from '../sql/aggregate-items'
import type { Collection, Field } from '../schema/collection'
import type { Item, PrimaryKey } from '../types'
import { compileFilter, compileOperand, compileSearch, CountJoins } from '../sql/compile-filter'
import type { Dialect, SqlFragment } from '../dialects'
import { InvalidQueryError } from '../errors'
import { columnValue, fromStorage, selectColumn, toStorage } from '../sql/storage'
import { arrayKeys, compileAfter, keyColumn, keyColumns, rowKeys, type SortTerm } from '../sql/keyset'
import { Shape } from '../query/query-shape'
import { boundList, PLANS_KEPT, StatementPlans } from '../sql/statement-plans'
import { LruMap } from '../lru-map'
import type { Db } from '../execute/db'
import { postProcessesResponses } from '../knex-adapter'

type Row = Record<string, unknown>

/** The window-function column that numbers each parent's related rows. */
const RANK = '__items_rank'

type ManyToOne = Extract<FieldNode, { kind: 'm2o' }>
type OneToMany = Extract<FieldNode, { kind: 'o2m' }>

/** A key list that a one-item read's statement brings (see `foldedLists`), with the values its subquery binds. */
interface FoldedList {
  readonly node: OneToMany
  readonly bound: readonly unknown[]
}

/** The page, as the statement that joins its many-to-one items names it (see `aroundPage`). */
const PAGE = '__items_page'
/** The page's columns the statement around it joins on and orders by. */
const joinKey = (relation: number): string => `__items_m2o_key_${relation}`
const orderColumn = (term: number): string => `__items_order_${term}`
/** A joined many-to-one item's table, and its columns, apart from the page's own. */
const joinAlias = (relation: number): string => `__items_m2o_${relation}`
const joinedColumn = (relation: number, field: Field): string => `${joinAlias(relation)}_${field.name}`

/**
 * The page's columns the statement around it joins on (one per relation) and orders by (one per sort term). Where
 * the page already selects the value needed, under the field's name, that column serves, and the page selects
 * no copy of it: a list of 25 by `-rating` with `author.name` reads 6 columns instead of 9, which the driver
 * parses in every row. The others are copies the page adds, named `joinKey(index)` and `orderColumn(index)`.
 */
interface PageLinks {
  readonly joinKeys: readonly string[]
  readonly orderColumns: readonly string[]
}

/**
 * Most keys a folded list may hold (the default `maxLimit`), so that the one value it makes stays small. A longer
 * list, under a raised limit and row budget, has a statement of its own.
 */
const MAX_FOLDED_KEYS = 1000

/** A folded key list's column in the item's statement, and its derived table's name and key column. */
const foldedColumn = (list: number): string => `__items_keys_${list}`
const FOLDED = '__items_keys'
const FOLDED_KEY = '__items_key'

export const keyId = (key: unknown): string => String(key)

/** The key id of the value `field` holds in a row the router read (its primary key, or a parent's foreign key). */
const rowKeyId = (row: Row, field: Field, dialect: Dialect): string => keyId(fromStorage(field, row[field.name], dialect))

/** The result column of a computed field, apart from every column name. */
const functionColumn = (output: string): string => `__items_fn_${output}`

/**
 * What a sort node orders by: the column, or for `author.name` a correlated subquery per many-to-one hop
 * (`(select s1.name from authors s1 where s1.id = articles.author)`). Subqueries, unlike joins, never repeat
 * rows; a missing related item, or one outside the hop's scope, reads as NULL and sorts with the NULLs.
 */
function sortExpression(knex: Knex, collection: Collection, node: SortNode, dialect: Dialect, joins?: CountJoins): SqlFragment {
  if (node.operand) return compileOperand(node.operand, collection.table, dialect, () => knex.queryBuilder(), joins)
  const first = node.path[0]?.field ?? node.field
  let value: SqlFragment = columnValue(first, `${collection.table}.${first.column}`, dialect)
  node.path.forEach(({ related, scope }, index) => {
    const alias = `__items_sort_${index + 1}`
    const next = node.path[index + 1]?.field ?? node.field
    const read = columnValue(next, `${alias}.${next.column}`, dialect)
    const hop = knex
      .queryBuilder()
      .from({ [alias]: related.table })
      .select(knex.raw(read.sql, read.bindings as Knex.RawBinding[]))
      .whereRaw(`?? = ${value.sql}`, [`${alias}.${related.primaryKey.column}`, ...value.bindings])
    if (scope) compileFilter(hop, scope, dialect, alias)
    value = { sql: '?', bindings: [hop] }
  })
  return value
}

/** A read passed `maxLoadedRows`: a 400, which an export answers by reading smaller chunks instead. */
export class RowBudgetError extends InvalidQueryError {}

/** Each parent's rows (all of them, in order) cut to its window: after `offset`, at most `limit`. */
function windows(rows: readonly Row[], foreignKey: Field, offset: number, limit: number, dialect: Dialect): Row[] {
  const seen = new Map<string, number>()
  return rows.filter((row) => {
    const parent = rowKeyId(row, foreignKey, dialect)
    const position = seen.get(parent) ?? 0
    seen.set(parent, position + 1)
    return position >= offset && position < offset + limit
  })
}

/**
 * A folded list's `[rank, key]` pairs: JSON text on SQLite and MySQL, parsed by the driver on PostgreSQL, NULL
 * over no rows; null when the text is not a whole JSON array (cut short).
 */
function pairsOf(value: unknown): [number, unknown][] | null {
  if (value === null || value === undefined) return []
  if (typeof value !== 'string') return value as [number, unknown][]
  try {
    const parsed: unknown = JSON.parse(value)
    return Array.isArray(parsed) ? (parsed as [number, unknown][]) : null
  } catch {
    return null
  }
}

/** Whether a sort node orders by a field of the collection's own rows (no relation, no function). */
const ownSort = (node: SortNode): boolean => node.path.length === 0 && node.operand === undefined

/** Whether a sort key can be NULL: a relational or computed key always can (no related row, no date). */
const mayBeNull = (node: SortNode): boolean => node.path.length > 0 || node.operand !== undefined || node.field.nullable

/**
 * The rows one read may still load (`maxLoadedRows`), shared by every statement of the read. Each statement asks
 * for one row more than what is left, so passing the bound is noticed without ever holding more rows than it.
 */
export class RowBudget {
  constructor(
    private remaining: number,
    private readonly max: number = remaining,
  ) {}

  /** The LIMIT a statement that wants `limit` rows (null: all) may use. */
  cap(limit: number | null): number | null {
    if (!Number.isFinite(this.remaining)) return limit
    return limit === null ? this.remaining + 1 : Math.min(limit, this.remaining + 1)
  }

  spend(rows: number): void {
    this.remaining -= rows
    if (this.remaining < 0) throw new RowBudgetError(`The request would load more than ${this.max} rows (maxLoadedRows)`)
  }
}

/** No bound: for the router's own reads (existing keys, a write's matches, already bounded by maxBatchSize). */
export const unbounded = (): RowBudget => new RowBudget(Number.POSITIVE_INFINITY)

/**
 * Keys per IN list: half the driver's bind-variable limit, leaving the other half for the filter (at most
 * `maxFilterConditions` values), the caller's scope and the search that the same statement binds.
 */
const keysPerStatement = (dialect: Dialect): number => Math.floor(dialect.maxParameters / 2)

export function chunk<T>(values: readonly T[], size: number): T[][] {
  const chunks: T[][] = []
  for (let start = 0; start < values.length; start += size) chunks.push(values.slice(start, start + size))
  return chunks
}

/** The fields a statement reads for `fields`: the primary key, then fields and many-to-one keys. */
function readFields(collection: Collection, fields: readonly FieldNode[]): Set<Field> {
  const read = new Set<Field>([collection.primaryKey])
  for (const node of fields) if (node.kind === 'field' || node.kind === 'm2o') read.add(node.field)
  return read
}

/** Whether a written row can answer `fields`: a function (a count, a date part) needs the query around the row. */
export const readFromRow = (fields: readonly FieldNode[]): boolean => !fields.some((node) => node.kind === 'function')

/**
 * Whether reading `fields` loads related items after the rows: without a relation node, the rows are the items
 * at once, and no promise is made for them (see is-promise-like.ts).
 */
const loadsRelations = (fields: readonly FieldNode[]): boolean => fields.some((node) => node.kind === 'm2o' || node.kind === 'o2m')

export class ItemLoader {
  constructor(
    private readonly knex: Knex,
    private readonly dialect: Dialect,
    private readonly maxLoadedRows: number = Number.POSITIVE_INFINITY,
  ) {
    // The host's postProcessResponse would be handed raw driver results where it expects rows.
    this.postProcesses = postProcessesResponses(knex)
    this.plans = new StatementPlans((result) => dialect.rawRows(result), PLANS_KEPT, !this.postProcesses)
  }

  /** Whether the host post-processes knex's responses, which then must hold rows as knex would give them. */
  readonly postProcesses: boolean

  /** Whether `loadArrays` may read: not where the host post-processes responses, expecting rows as objects. */
  get readsArrays(): boolean {
    return !this.postProcesses
  }

  /** The read statements compiled so far, by shape (see statement-plans.ts). */
  private readonly plans: StatementPlans

  /**
   * The per-parent windows, by the shape of their plain read and their bounds, whose plain read found some parent
   * with more rows than its window keeps (see `childRows`): their next reads number the rows in SQL at once.
   */
  private readonly overflowing = new LruMap<true>(true, PLANS_KEPT)

  /**
   * The items the selection picks, shaped by `fields`, loading at most `maxLoadedRows` rows unless told otherwise.
   * `oneItem`: the key of the one item the selection picks, whose key lists of at most `foldedKeys` keys its
   * statement may then bring (see `foldedLists`).
   */
  async load(
    db: Db,
    collection: Collection,
    fields: readonly FieldNode[],
    selection: Selection,
    budget = new RowBudget(this.maxLoadedRows),
    oneItem: { key: PrimaryKey; foldedKeys: number } | null = null,
  ): Promise<Item[]> {
    const joined = this.joinedRelations(fields, selection)
    const folded = oneItem === null ? [] : this.foldedLists(fields, oneItem.key, Math.min(oneItem.foldedKeys, MAX_FOLDED_KEYS), budget)
    const rows = await this.query(db, collection, fields, selection, budget, joined, false, folded)
    return loadsRelations(fields)
      ? this.shape(db, collection, fields, rows, budget, joined, folded)
      : this.shapeRows(collection, fields, rows)
  }

  /**
   * As `load`, with the sort keys of the last item (null when there is none): where the next page or chunk
   * starts (`selection.after`).
   */
  async loadKeyed(
    db: Db,
    collection: Collection,
    fields: readonly FieldNode[],
    selection: Selection,
    budget = new RowBudget(this.maxLoadedRows),
  ): Promise<{ items: Item[]; last: unknown[] | null }> {
    const joined = this.joinedRelations(fields, selection)
    const rows = await this.query(db, collection, fields, selection, budget, joined, true)
    const items = loadsRelations(fields)
      ? await this.shape(db, collection, fields, rows, budget, joined)
      : this.shapeRows(collection, fields, rows)
    const lastRow = rows[rows.length - 1]
    return { items, last: lastRow === undefined ? null : rowKeys(lastRow, this.sortTerms(collection, selection), this.dialect) }
  }

  /**
   * What a write's RETURNING selects so that its row reads as `fields` would read it (see `shapeReturned`), for
   * fields a row can answer (`readFromRow`, which the writer checks before it asks).
   */
  returningColumns(collection: Collection, fields: readonly FieldNode[]): (string | Knex.Raw)[] {
    return this.columns(collection, fields)
  }

  /**
   * Rows a write returned through `returningColumns`, or `rowsByKeys` read right after it, shaped as a read of
   * `fields`: relations load now.
   */
  shapeReturned(db: Db, collection: Collection, fields: readonly FieldNode[], rows: readonly Row[]): Promise<Item[]> {
    if (!loadsRelations(fields)) return Promise.resolve(this.shapeRows(collection, fields, rows))
    const budget = new RowBudget(this.maxLoadedRows)
    budget.spend(rows.length)
    return this.shape(db, collection, fields, rows, budget)
  }

  /**
   * The statement of one chunk of an export whose CSV the database writes (Dialect.csvCopy): `cells` as its
   * columns, and the list's filter, search, keyset, order, LIMIT and OFFSET, as `loadKeyed` would read them.
   */
  csvStatement(db: Db, collection: Collection, selection: Selection, cells: readonly SqlFragment[]): Knex.QueryBuilder {
    const joins = this.countJoins(collection)
    const columns = cells.map((cell) => this.knex.raw(cell.sql, [...cell.bindings]))
    return this.chunkStatement(db, collection, selection, columns, this.sortTerms(collection, selection, joins), joins)
  }

  /**
   * A chunk of plain fields as arrays, in the driver's array mode where it has one (Dialect.arrayRows): each row
   * the fields' canonical values in order, so that no row becomes an item; with the sort keys of the last row.
   * Only where `readsArrays`.
   */
  async loadArrays(
    db: Db,
    collection: Collection,
    fields: readonly Field[],
    selection: Selection,
  ): Promise<{ items: unknown[][]; last: unknown[] | null }> {
    const joins = this.countJoins(collection)
    const terms = this.sortTerms(collection, selection, joins)
    const columns = [...fields.map((field) => selectColumn(this.knex, field, this.dialect)), ...keyColumns(this.knex, terms, this.dialect)]
    const qb = this.chunkStatement(db, collection, selection, columns, terms, joins)
    // A driver that ignored the option answered objects: their columns by name (Object.values would put a
    // field named like a number first).
    const names = [...fields.map((field) => field.name), ...terms.map((_, index) => keyColumn(index))]
    const rows = ((await qb.options(this.dialect.arrayRows)) as (unknown[] | Row)[]).map((row) =>
      Array.isArray(row) ? row : names.map((name) => row[name]),
    )
    const lastRow = rows[rows.length - 1]
    const last = lastRow === undefined ? null : arrayKeys(lastRow, fields.length, terms, this.dialect)
    for (const values of rows) {
      for (let index = 0; index < fields.length; index++) values[index] = fromStorage(fields[index]!, values[index], this.dialect)
      values.length = fields.length
    }
    return { items: rows, last }
  }

  /** A chunk's statement: `columns`, then the selection's filter, search, keyset, order, LIMIT and OFFSET. */
  private chunkStatement(
    db: Db,
    collection: Collection,
    selection: Selection,
    columns: readonly (string | Knex.Raw)[],
    terms: readonly SortTerm[],
    joins: CountJoins,
  ): Knex.QueryBuilder {
    const qb = db(collection.table).select([...columns])
    this.where(qb, collection, selection, joins)
    if (selection.after) compileAfter(qb, terms, selection.after, this.dialect)
    const order = this.orderTerms(collection, selection, joins)
    joins.applyTo(qb)
    if (order.sql) qb.orderByRaw(order.sql, order.bindings)
    if (selection.limit !== null) qb.limit(selection.limit)
    if (selection.offset > 0) qb.offset(selection.offset)
    return qb
  }

  /** Groups and summarizes the rows the query's filter and search select (`aggregate`, `groupBy`). */
  async aggregate(db: Db, collection: Collection, query: Selection & { aggregate: AggregateQuery }): Promise<Item[]> {
    if (query.limit === 0) return []
    const shape = query.search === null ? new Shape('aggregate').schema(collection).filter(query.filter).aggregate(query.aggregate) : null
    const rows = await this.plans
      .select(db, shape, { limit: query.limit, offset: query.offset }, () => {
        const qb = db(collection.table)
        const joins = this.countJoins(collection)
        this.where(qb, collection, query, joins)
        joins.applyTo(qb)
        return aggregateStatement(this.knex, qb, collection, query.aggregate, this.dialect)
      })
      .catch((error: unknown) => {
        throw aggregateError(error, collection, this.dialect)
      })
    return aggregatedItems(rows, query.aggregate, collection, this.dialect)
  }

  /** Adds the selection's filter and search to `qb`; its counts go to `joins`, which the caller applies. */
  where(qb: Knex.QueryBuilder, collection: Collection, selection: Pick<Selection, 'filter' | 'search'>, joins?: CountJoins): void {
    joins?.collect(selection.filter)
    if (selection.filter) compileFilter(qb, selection.filter, this.dialect, collection.table, joins)
    if (selection.search !== null) compileSearch(qb, selection.search, this.dialect)
  }

  /** Collects the counts of one query on the collection's table, to join them once (see CountJoins). */
  countJoins(collection: Collection): CountJoins {
    return new CountJoins(collection.table, () => this.knex.queryBuilder(), this.dialect)
  }

  /** The primary key, the columns `fields` reads, and `extra` (a foreign key to group by). */
  private columns(collection: Collection, fields: readonly FieldNode[], extra?: Field, joins?: CountJoins): (string | Knex.Raw)[] {
    const columns = readFields(collection, fields)
    if (extra) columns.add(extra)
    const computed = fields.flatMap((node) => {
      if (node.kind !== 'function') return []
      const { sql, bindings } = compileOperand(node.operand, collection.table, this.dialect, () => this.knex.queryBuilder(), joins)
      return [this.knex.raw(`${sql} as ??`, [...bindings, functionColumn(node.output)])]
    })
    return [...[...columns].map((field) => selectColumn(this.knex, field, this.dialect)), ...computed]
  }

  private sortTerms(collection: Collection, selection: Selection, joins?: CountJoins): SortTerm[] {
    return selection.sort.map((node) => ({ node, expression: sortExpression(this.knex, collection, node, this.dialect, joins) }))
  }

  private orderTerms(collection: Collection, selection: Selection, joins?: CountJoins): SqlFragment {
    const terms = this.sortTerms(collection, selection, joins).map(({ node, expression }) =>
      this.dialect.orderBy(expression, node.direction, !node.operand && node.field.spec.text, mayBeNull(node)),
    )
    return { sql: terms.map((term) => term.sql).join(', '), bindings: terms.flatMap((term) => term.bindings) }
  }

  /**
   * The many-to-one items of `fields` that a page's own statement reads (see `aroundPage`), sparing a statement
   * (over a network, a round trip) each: where the dialect joins them and the page is sorted by its own columns,
   * for a relation without scope or computed field. The others are read by statements of their own (`byKeys`).
   * A key and the key it references always have one type (build-schema.ts), so the join compares like with like.
   */
  private joinedRelations(fields: readonly FieldNode[], selection: Selection): ManyToOne[] {
    const ownOrder = selection.sort.length > 0 && selection.sort.every(ownSort)
    if (!this.dialect.joinsManyToOne || !ownOrder) return []
    return fields.filter(
      (node): node is ManyToOne => node.kind === 'm2o' && node.scope === null && node.children.every((child) => child.kind !== 'function'),
    )
  }

  /**
   * The key lists (one-to-many fields without children) that a one-item read's own statement brings, sparing a
   * statement each: where the dialect has the aggregate (`keyPairs`), for integer keys (exact in JSON), with no
   * filter (a caller's scope, `deep`), search or relational sort, and a LIMIT (the list's, or the row budget's)
   * of at most `most` keys. Each is limited as its own statement would be, so the row budget counts the same
   * rows. The others are read by statements of their own (`children`).
   */
  private foldedLists(fields: readonly FieldNode[], key: PrimaryKey, most: number, budget: RowBudget): FoldedList[] {
    // `most` 0: no list may fold, not even one of LIMIT 0, which a server without the aggregate cannot compile.
    if (most === 0) return []
    return fields.flatMap((node) => {
      if (node.kind !== 'o2m' || node.children !== null || node.related.primaryKey.type !== 'integer') return []
      const { filter, search, sort, offset } = node.selection
      const limit = budget.cap(node.selection.limit)
      if (filter !== null || search !== null || limit === null || limit > most || !sort.every(ownSort)) return []
      const parent = toStorage(node.relation.foreignKey, key, this.dialect)
      return [{ node, bound: offset > 0 ? [parent, limit, offset] : [parent, limit] }]
    })
  }

  /**
   * A folded key list as one column: its keys from a derived table of the related rows, each numbered in the
   * list's order, then aggregated into `[rank, key]` pairs (see `unfoldKeys`). The parent's key, the LIMIT
   * and the OFFSET are bound, so no subquery refers to the outer row (MariaDB's derived tables cannot).
   */
  private foldedList(list: number, { node, bound }: FoldedList, slots: readonly unknown[]): Knex.Raw {
    const { related } = node
    const order = this.orderTerms(related, node.selection)
    const page = bound.length > 2 ? 'limit ? offset ?' : 'limit ?'
    return this.knex.raw(
      `(select ${this.dialect.keyPairs} from (select ?? as ??, row_number() over (order by ${order.sql}) as ?? from ?? ` +
        `where ?? = ? order by ${order.sql} ${page}) as ??) as ??`,
      [
        RANK,
        FOLDED_KEY,
        `${related.table}.${related.primaryKey.column}`,
        FOLDED_KEY,
        ...order.bindings,
        RANK,
        related.table,
        `${related.table}.${node.relation.foreignKey.column}`,
        slots[0],
        ...order.bindings,
        ...slots.slice(1),
        FOLDED,
        foldedColumn(list),
      ] as Knex.RawBinding[],
    )
  }

  private async query(
    db: Db,
    collection: Collection,
    fields: readonly FieldNode[],
    selection: Selection,
    budget: RowBudget,
    joined: readonly ManyToOne[],
    keyed = false,
    folded: readonly FoldedList[] = [],
  ): Promise<Row[]> {
    if (selection.limit === 0) return []
    const page = { limit: budget.cap(selection.limit), offset: selection.offset }
    // A search or a cursor binds values outside the filter's comparisons: such statements are compiled each time.
    const kept = selection.search === null && !selection.after
    let shape: Shape | null = null
    if (kept) {
      shape = new Shape('items').schema(collection).word(String(keyed)).columns(fields).filter(selection.filter).sort(selection.sort)
      for (const node of joined) shape.word('joined').schema(node.related).columns(node.children)
      for (const { node, bound } of folded)
        shape.word('folded').schema(node.relation.foreignKey).sort(node.selection.sort).word(String(bound.length))
    }
    const bound = folded.flatMap((list) => list.bound)
    // Only a statement compiled afresh needs them: a kept plan holds its text.
    let links: PageLinks | undefined
    const linked = (): PageLinks => (links ??= this.pageLinks(collection, fields, selection, joined))
    const compile = (): Knex.QueryBuilder => {
      const joins = this.countJoins(collection)
      const qb = db(collection.table).select(this.columns(collection, fields, undefined, joins))
      const slots = boundList(bound)
      let next = 0
      folded.forEach((list, index) => {
        qb.select(this.foldedList(index, list, slots.slice(next, next + list.bound.length)))
        next += list.bound.length
      })
      this.where(qb, collection, selection, joins)
      if (keyed || selection.after || joined.length > 0) {
        const terms = this.sortTerms(collection, selection, joins)
        if (keyed) qb.select(keyColumns(this.knex, terms, this.dialect))
        if (selection.after) compileAfter(qb, terms, selection.after, this.dialect)
        if (joined.length > 0) {
          const { joinKeys, orderColumns } = linked()
          joined.forEach((node, index) => {
            const copy = joinKey(index)
            if (joinKeys[index] === copy) qb.select(this.knex.raw('?? as ??', [`${collection.table}.${node.field.column}`, copy]))
          })
          terms.forEach(({ expression }, index) => {
            const copy = orderColumn(index)
            if (orderColumns[index] === copy) qb.select(this.knex.raw(`${expression.sql} as ??`, [...expression.bindings, copy]))
          })
        }
      }
      const order = this.orderTerms(collection, selection, joins)
      joins.applyTo(qb)
      if (order.sql) qb.orderByRaw(order.sql, order.bindings)
      return qb
    }
    const around = joined.length > 0 ? (paged: Knex.QueryBuilder | string) => this.aroundPage(paged, selection, joined, linked()) : null
    const rows = await this.plans.select(db, shape, page, compile, bound, around)
    budget.spend(rows.length)
    return rows
  }

  /**
   * Which page columns the statement around the page joins and orders by (see PageLinks). A field the page
   * selects holds `columnValue` of its column, as an own sort term orders by it, unless the dialect reads it
   * through a text cast or it is an array; a join key must also be the bare column, as the related key is.
   */
  private pageLinks(collection: Collection, fields: readonly FieldNode[], selection: Selection, joined: readonly ManyToOne[]): PageLinks {
    const selected = readFields(collection, fields)
    const readAsValued = (field: Field): boolean =>
      selected.has(field) && field.type !== 'array' && !this.dialect.readAsText.has(field.type)
    const bare = (field: Field): boolean => readAsValued(field) && columnValue(field, field.column, this.dialect).sql === '??'
    return {
      joinKeys: joined.map((node, index) => (bare(node.field) ? node.field.name : joinKey(index))),
      // Every sort term is the page's own here (see joinedRelations).
      orderColumns: selection.sort.map((node, index) => (readAsValued(node.field) ? node.field.name : orderColumn(index))),
    }
  }

  /**
   * The statement that reads a page with its many-to-one items: the page as a derived table, so that its LIMIT
   * applies before the join and a page of 25 joins 25 rows whatever the table's size; each relation LEFT JOINed
   * by its key under a name of its own; the page's order again, from the sort keys the page selected.
   */
  private aroundPage(
    paged: Knex.QueryBuilder | string,
    selection: Selection,
    joined: readonly ManyToOne[],
    links: PageLinks,
  ): Knex.QueryBuilder {
    const source = typeof paged === 'string' ? this.knex.raw(`(${paged}) as ??`, [PAGE]) : paged.as(PAGE)
    const outer = this.knex
      .queryBuilder()
      .select(this.knex.raw('??.*', [PAGE]))
      .from(source)
    joined.forEach((node, index) => {
      const alias = joinAlias(index)
      const { related } = node
      const columns = [...readFields(related, node.children)].map((field) =>
        selectColumn(this.knex, field, this.dialect, { table: alias, output: joinedColumn(index, field) }),
      )
      outer
        .select(columns)
        .leftJoin({ [alias]: related.table }, `${alias}.${related.primaryKey.column}`, `${PAGE}.${links.joinKeys[index]}`)
    })
    const order = selection.sort.map((node, index) =>
      this.dialect.orderBy(
        { sql: '??', bindings: [`${PAGE}.${links.orderColumns[index]}`] },
        node.direction,
        node.field.spec.text,
        mayBeNull(node),
      ),
    )
    return outer.orderByRaw(
      order.map((term) => term.sql).join(', '),
      order.flatMap((term) => term.bindings),
    )
  }

  /**
   * Builds the response objects, loading each relation node once for all rows. Without a relation to load (a key
   * list, plain fields) they are built at once, with no promise (see is-promise-like.ts).
   */
  private shape(
    db: Db,
    collection: Collection,
    fields: readonly FieldNode[],
    rows: readonly Row[],
    budget: RowBudget,
    joined: readonly ManyToOne[] = [],
    folded: readonly FoldedList[] = [],
  ): Promise<Item[]> {
    const keys = this.keysOf(collection, rows)
    return this.relations(db, fields, rows, keys, budget, joined, folded).then((relations) => this.items(fields, rows, keys, relations))
  }

  /** The response objects of rows read without relations (see `loadsRelations`): nothing left to load. */
  private shapeRows(collection: Collection, fields: readonly FieldNode[], rows: readonly Row[]): Item[] {
    return this.items(fields, rows, this.keysOf(collection, rows), new Map())
  }

  private keysOf(collection: Collection, rows: readonly Row[]): PrimaryKey[] {
    const pk = collection.primaryKey
    return rows.map((row) => fromStorage(pk, row[pk.name], this.dialect) as PrimaryKey)
  }

  /** Each relation node's related items (or keys) for these rows, by key id. */
  private async relations(
    db: Db,
    fields: readonly FieldNode[],
    rows: readonly Row[],
    keys: readonly PrimaryKey[],
    budget: RowBudget,
    joined: readonly ManyToOne[],
    folded: readonly FoldedList[],
  ): Promise<Map<FieldNode, Map<string, unknown>>> {
    const relations = new Map<FieldNode, Map<string, unknown>>()
    for (const node of fields) {
      if (node.kind === 'm2o') {
        const index = joined.indexOf(node)
        if (index >= 0) {
          relations.set(node, await this.joinedItems(db, node, index, rows, budget))
          continue
        }
        const references = rows.map((row) => fromStorage(node.field, row[node.field.name], this.dialect)).filter((key) => key !== null)
        const related = [...new Set(references)] as PrimaryKey[]
        relations.set(node, await this.byKeys(db, node.related, related, node.children, node.scope, budget))
      } else if (node.kind === 'o2m') {
        const list = folded.findIndex((candidate) => candidate.node === node)
        const unfolded = list >= 0 ? this.unfoldKeys(node, list, keys, rows, budget) : null
        relations.set(node, unfolded ?? (await this.children(db, node, keys, budget)))
      }
    }
    return relations
  }

  /** The response objects of the rows, from their fields and their relations' items. */
  private items(
    fields: readonly FieldNode[],
    rows: readonly Row[],
    keys: readonly PrimaryKey[],
    relations: ReadonlyMap<FieldNode, Map<string, unknown>>,
  ): Item[] {
    return rows.map((row, index) => {
      const item: Item = {}
      for (const node of fields) {
        switch (node.kind) {
          case 'field':
            item[node.output] = fromStorage(node.field, row[node.field.name], this.dialect)
            break
          case 'function': {
            const value = row[functionColumn(node.output)]
            item[node.output] = value === null || value === undefined ? null : Number(value)
            break
          }
          case 'm2o': {
            const reference = fromStorage(node.field, row[node.field.name], this.dialect)
            item[node.output] = reference === null ? null : (relations.get(node)?.get(keyId(reference)) ?? null)
            break
          }
          case 'o2m':
            item[node.output] = relations.get(node)?.get(keyId(keys[index])) ?? []
        }
      }
      return item
    })
  }

  /**
   * The keys of a folded list (see `foldedList`) by parent key id: its `[rank, key]` pairs put in rank order.
   * null when a value is not whole: MariaDB cuts the aggregate's text at `group_concat_max_len`, which a
   * connection may have set lower than the one the router asked (Dialect.serverTraits); the list is then read
   * by a statement of its own.
   */
  private unfoldKeys(
    node: OneToMany,
    list: number,
    parents: readonly PrimaryKey[],
    rows: readonly Row[],
    budget: RowBudget,
  ): Map<string, unknown[]> | null {
    const lists: [number, unknown][][] = []
    for (const row of rows) {
      const pairs = pairsOf(row[foldedColumn(list)])
      if (pairs === null) return null
      lists.push(pairs)
    }
    const pk = node.related.primaryKey
    const byParent = new Map<string, unknown[]>()
    lists.forEach((pairs, index) => {
      pairs.sort((a, b) => a[0] - b[0])
      budget.spend(pairs.length)
      byParent.set(
        keyId(parents[index]),
        pairs.map(([, key]) => fromStorage(pk, key, this.dialect)),
      )
    })
    return byParent
  }

  /** The many-to-one items the page's statement read beside its rows (see `aroundPage`), by key id. */
  private async joinedItems(db: Db, node: ManyToOne, index: number, rows: readonly Row[], budget: RowBudget): Promise<Map<string, Item>> {
    const { related } = node
    const pk = related.primaryKey
    const fields = [...readFields(related, node.children)]
    const columns = fields.map((field) => joinedColumn(index, field))
    const keyColumn = joinedColumn(index, pk)
    const found = new Map<string, Row>()
    for (const row of rows) {
      const key = row[keyColumn]
      if (key === null || key === undefined) continue
      const id = keyId(fromStorage(pk, key, this.dialect))
      if (found.has(id)) continue
      const own: Row = {}
      fields.forEach((field, position) => (own[field.name] = row[columns[position]!]))
      found.set(id, own)
    }
    // Each related item counts once, as it does when read by a statement of its own.
    budget.spend(found.size)
    const own = [...found.values()]
    const items = loadsRelations(node.children)
      ? await this.shape(db, related, node.children, own, budget)
      : this.shapeRows(related, node.children, own)
    let position = 0
    const byKey = new Map<string, Item>()
    for (const id of found.keys()) byKey.set(id, items[position++]!)
    return byKey
  }

  /** The items of `collection` with these keys and within `scope`, by key id: one statement per chunk of keys. */
  async byKeys(
    db: Db,
    collection: Collection,
    keys: readonly PrimaryKey[],
    fields: readonly FieldNode[],
    scope: FilterNode | null = null,
    budget = new RowBudget(this.maxLoadedRows),
  ): Promise<Map<string, Item>> {
    const rows = await this.rowsByKeys(db, collection, keys, fields, scope, budget)
    const items = loadsRelations(fields) ? await this.shape(db, collection, fields, rows, budget) : this.shapeRows(collection, fields, rows)
    const pk = collection.primaryKey
    return new Map(rows.map((row, index) => [rowKeyId(row, pk, this.dialect), items[index]!]))
  }

  /**
   * The rows of `collection` with these keys and within `scope` as `fields` read them, before their relations:
   * what `shapeReturned` takes. One statement per chunk of keys.
   */
  async rowsByKeys(
    db: Db,
    collection: Collection,
    keys: readonly PrimaryKey[],
    fields: readonly FieldNode[],
    scope: FilterNode | null = null,
    budget = new RowBudget(this.maxLoadedRows),
  ): Promise<Row[]> {
    const pk = collection.primaryKey
    const rows: Row[] = []
    for (const part of chunk(keys, keysPerStatement(this.dialect))) {
      const stored = part.map((key) => toStorage(pk, key, this.dialect))
      const shape = new Shape('keys').schema(collection).columns(fields).filter(scope)
      const page = { limit: null, offset: 0 }
      const found = await this.plans.select(
        db,
        shape,
        page,
        () => {
          const qb = db(collection.table).select(this.columns(collection, fields))
          const bound = boundList(stored)
          // One key is `=`, as in compile-comparison.ts's lists.
          if (bound.length === 1) qb.where(pk.column, bound[0]!)
          else qb.whereIn(pk.column, bound)
          if (scope) compileFilter(qb, scope, this.dialect, collection.table)
          return qb
        },
        stored,
      )
      // A key names at most one row, so the statement needs no LIMIT; the budget counts what came back.
      budget.spend(found.length)
      // A loop, not push(...found): spreading a huge array overflows the call stack.
      for (const row of found) rows.push(row)
    }
    return rows
  }

  /** Each parent's related items (or keys), by parent key id, filtered, ordered and limited per parent. */
  private async children(
    db: Db,
    node: Extract<FieldNode, { kind: 'o2m' }>,
    parentKeys: readonly PrimaryKey[],
    budget: RowBudget,
  ): Promise<Map<string, unknown[]>> {
    const { related, selection } = node
    const foreignKey = node.relation.foreignKey
    const fields: readonly FieldNode[] = node.children ?? [{ kind: 'field', output: 'key', field: related.primaryKey }]
    const rows: Row[] = []
    if (selection.limit !== 0) {
      for (const part of chunk(parentKeys, keysPerStatement(this.dialect))) {
        const found = await this.childRows(db, related, fields, foreignKey, part, selection, budget.cap(null))
        budget.spend(found.length)
        for (const row of found) rows.push(row)
      }
    }
    const groups = new Map<string, unknown[]>()
    const add = (row: Row, value: unknown): void => {
      const parent = rowKeyId(row, foreignKey, this.dialect)
      const list = groups.get(parent)
      if (list === undefined) groups.set(parent, [value])
      else list.push(value)
    }
    if (node.children === null) {
      // A list of keys: each row's key is all it answers, so no item is built for it.
      const key = related.primaryKey
      for (const row of rows) add(row, fromStorage(key, row[key.name], this.dialect))
      return groups
    }
    const items = loadsRelations(fields) ? await this.shape(db, related, fields, rows, budget) : this.shapeRows(related, fields, rows)
    rows.forEach((row, index) => add(row, items[index]))
    return groups
  }

  /**
   * The related rows of a chunk of parents, each parent's cut to its window (a per-parent limit or offset). Over
   * several parents, the rows are first read without windows, at most as many as the windows could keep, and each
   * parent's window is cut in this process when that read holds all their rows. Only when some parent has more
   * does a statement number each parent's rows with ROW_NUMBER() (SQLite 3.25+, MariaDB 10.2+, MySQL 8,
   * PostgreSQL) and keep their windows; the shape then goes to that statement at once from its next read
   * (`overflowing`), as lists shaped by a small `deep[...][_limit]` usually do.
   *
   * The window function costs the database more than the rows it spares: for a relational page's 358 comments
   * over 100 articles, MariaDB took 4.1–4.3 ms of wall time against 1.4–1.6 ms for the plain read, PostgreSQL
   * 2.4 against 1.7 ms, and on SQLite it took most of the page's time.
   */
  private childRows(
    db: Db,
    related: Collection,
    fields: readonly FieldNode[],
    foreignKey: Field,
    parents: readonly PrimaryKey[],
    selection: Selection,
    cap: number | null,
  ): Promise<Row[]> {
    const byParent = fieldIn(foreignKey, parents)
    const scoped = { ...selection, filter: selection.filter ? { kind: 'and' as const, children: [byParent, selection.filter] } : byParent }
    // A search binds a value outside the filter's comparisons: such statements are compiled each time.
    const shape = (kind: 'children' | 'window'): Shape | null =>
      selection.search === null
        ? new Shape(kind).schema(related).columns(fields).schema(foreignKey).filter(scoped.filter).sort(selection.sort)
        : null
    const plain = (): Knex.QueryBuilder => {
      const qb = db(related.table).select(this.columns(related, fields, foreignKey))
      this.where(qb, related, scoped)
      const order = this.orderTerms(related, selection)
      return qb.orderByRaw(order.sql, order.bindings)
    }
    // One parent (a one-item read): its window is a plain LIMIT / OFFSET, which spares SQL the window function.
    if ((selection.limit === null && selection.offset === 0) || parents.length === 1) {
      const limit = selection.limit === null ? cap : cap === null ? selection.limit : Math.min(selection.limit, cap)
      return this.plans.select(db, shape('children'), { limit, offset: selection.offset }, plain)
    }
    // The window's rank bounds: after the offset, up to the limit if there is one.
    const bounds = selection.limit === null ? [selection.offset] : [selection.offset, selection.offset + selection.limit]
    const windowed = (): Promise<Row[]> =>
      this.plans.select(
        db,
        shape('window'),
        { limit: cap, offset: 0 },
        () => {
          const [after, last] = boundList(bounds)
          const order = this.orderTerms(related, selection)
          const ranked = db(related.table).select([
            ...this.columns(related, fields, foreignKey),
            this.knex.raw(`row_number() over (partition by ?? order by ${order.sql}) as ??`, [foreignKey.column, ...order.bindings, RANK]),
          ])
          this.where(ranked, related, scoped)
          const outer = db.select('*').from(ranked.as('ranked')).where(RANK, '>', after!)
          if (last !== undefined) outer.andWhere(RANK, '<=', last)
          return outer.orderBy(RANK)
        },
        bounds,
      )
    // Many parents: neither read asks for more than one row past the row budget (`cap`).
    if (selection.limit === null) return windowed()
    const { offset, limit } = selection
    const plainShape = shape('children')
    const seen = plainShape === null ? null : `${plainShape.key},${offset},${limit}`
    if (seen !== null && this.overflowing.get(seen) !== undefined) return windowed()
    const most = Math.min(parents.length * (offset + limit), cap === null ? Number.POSITIVE_INFINITY : cap - 1)
    return this.plans.select(db, plainShape, { limit: most + 1, offset: 0 }, plain).then((rows) => {
      if (rows.length <= most) return windows(rows, foreignKey, offset, limit, this.dialect)
      if (seen !== null) this.overflowing.keep(seen, true)
      return windowed()
    })
  }
}
