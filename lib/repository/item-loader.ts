// Reads items and their relations: one statement for the rows, which over a network also joins the page's own
// many-to-one items where it can, and for one item by key also brings its key lists; then one per other relation
// node of the field tree (batched IN lists, chunked below the driver's parameter limit), never one per row.
import type { Knex } from 'knex'
import type { AggregateQuery, AnyTarget, FieldNode, Selection } from '../query/query'
import type { FilterNode } from '../query/filter-node'
import { aggregatedItems, aggregateError } from '../sql/aggregate-items'
import type { Collection, Field } from '../schema/collection'
import type { Item, PrimaryKey } from '../types'
import type { Dialect, SqlFragment } from '../dialects'
import { fromStorage, selectColumn } from '../dialects/storage'
import { arrayKeys, keyColumn, keyColumns, rowKeys } from '../sql/keyset'
import { TEMPLATES_KEPT, StatementTemplates, UNPAGED } from '../sql/statement-templates'
import { OWN_VALUES } from '../sql/value-slots'
import { foldedColumn, functionColumn, joinedColumn, ReadStatements } from '../sql/read-statements'
import { planAggregate, planPageRead, readFields, type FoldedList, type ManyToOne, type OneToMany, type ReadPlan } from '../plan/read-plan'
import { chunk, keysPerStatement, planByKeys, planRelatedList, type ListPlan } from '../plan/relation-plans'
import { RowBudget } from './row-budget'
import { keyOfValues } from '../schema/item-key'
import { LruMap } from '../lru-map'
import type { Db } from '../execute/db'
import { postProcessesResponses } from '../knex-adapter'

type Row = Record<string, unknown>

export const keyId = (key: unknown): string => String(key)

/** A many-to-any item's id among those of every collection (see `anyItems`). */
const anyId = (target: AnyTarget, id: string): string => `${target.related.name}\u0000${id}`

/** The key id of the value `field` holds in a row the router read (its primary key, or a parent's foreign key). */
const rowKeyId = (row: Row, field: Field, dialect: Dialect): string => keyId(fromStorage(field, row[field.name], dialect))

/** The key of a row the router read, in the router's key form (see schema/item-key.ts). */
export const rowKey = (collection: Collection, row: Row, dialect: Dialect): PrimaryKey =>
  keyOfValues(collection, (field) => fromStorage(field, row[field.name], dialect))

/** A composite key as a list of keys answers it: an object naming each key field. */
const keyObject = (collection: Collection, row: Row, dialect: Dialect): Row =>
  Object.fromEntries(collection.key.map((field) => [field.name, fromStorage(field, row[field.name], dialect)]))

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

/** Whether a written row can answer `fields`: a function (a count, a date part) needs the query around the row. */
export const readFromRow = (fields: readonly FieldNode[]): boolean => !fields.some((node) => node.kind === 'function')

/**
 * Whether reading `fields` loads related items after the rows: without a relation node, the rows are the items
 * at once, and no promise is made for them (see is-promise-like.ts).
 */
const loadsRelations = (fields: readonly FieldNode[]): boolean =>
  fields.some((node) => node.kind === 'm2o' || node.kind === 'o2m' || (node.kind === 'm2a' && node.targets.length > 0))

type AnyNode = Extract<FieldNode, { kind: 'm2a' }>

/**
 * The collection a row's many-to-any item belongs to among those `node` expands, and the item's key in that
 * collection's type (the field may keep it as text); null when the row names none of them or no valid key.
 */
function anyReference(node: AnyNode, row: Row, dialect: Dialect): { target: AnyTarget; key: PrimaryKey } | null {
  const { field } = node
  const name = fromStorage(field.referencesAny!.collectionField, row[field.referencesAny!.collectionField.name], dialect)
  const target = node.targets.find((each) => each.related.name === name)
  const stored = fromStorage(field, row[field.name], dialect)
  if (target === undefined || stored === null) return null
  const key = target.related.primaryKey.spec.fromText(String(stored)) as PrimaryKey | undefined
  return key === undefined ? null : { target, key }
}

export class ItemLoader {
  constructor(
    private readonly knex: Knex,
    private readonly dialect: Dialect,
    private readonly maxLoadedRows: number = Number.POSITIVE_INFINITY,
  ) {
    // The host's postProcessResponse would be handed raw driver results where it expects rows.
    this.postProcesses = postProcessesResponses(knex)
    this.templates = new StatementTemplates((result) => dialect.rawRows(result), TEMPLATES_KEPT, !this.postProcesses)
    this.statements = new ReadStatements(knex, dialect)
  }

  /** The compilers of the read statements. */
  readonly statements: ReadStatements

  /** Whether the host post-processes knex's responses, which then must hold rows as knex would give them. */
  readonly postProcesses: boolean

  /** Whether `loadArrays` may read: not where the host post-processes responses, expecting rows as objects. */
  get readsArrays(): boolean {
    return !this.postProcesses
  }

  /** The read statements kept as templates, by their plans' keys (see statement-templates.ts). */
  private readonly templates: StatementTemplates

  /**
   * The per-parent windows, by the key of their plain read and their bounds, whose plain read found some parent
   * with more rows than its window keeps (see `childRows`): their next reads number the rows in SQL at once.
   */
  private readonly overflowing = new LruMap<true>(true, TEMPLATES_KEPT)

  /**
   * The items the selection picks, shaped by `fields`, loading at most `maxLoadedRows` rows unless told otherwise.
   * `oneItem`: the key of the one item the selection picks, whose key lists of at most `foldedKeys` keys its
   * statement may then bring (see plan/read-plan.ts).
   */
  async load(
    db: Db,
    collection: Collection,
    fields: readonly FieldNode[],
    selection: Selection,
    budget = new RowBudget(this.maxLoadedRows),
    oneItem: { key: PrimaryKey; foldedKeys: number } | null = null,
  ): Promise<Item[]> {
    const cap = (limit: number | null): number | null => budget.cap(limit)
    const plan = planPageRead(collection, fields, selection, this.dialect, {
      keyed: false,
      limit: budget.cap(selection.limit),
      oneItem: oneItem && { ...oneItem, cap },
    })
    const rows = await this.page(db, plan, budget)
    return loadsRelations(fields)
      ? this.withRelations(db, collection, fields, rows, budget, plan.joined, plan.folded)
      : this.plainItems(collection, fields, rows)
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
    const plan = planPageRead(collection, fields, selection, this.dialect, {
      keyed: true,
      limit: budget.cap(selection.limit),
      oneItem: null,
    })
    const rows = await this.page(db, plan, budget)
    const items = loadsRelations(fields)
      ? await this.withRelations(db, collection, fields, rows, budget, plan.joined)
      : this.plainItems(collection, fields, rows)
    const lastRow = rows[rows.length - 1]
    if (lastRow === undefined) return { items, last: null }
    return { items, last: rowKeys(lastRow, this.statements.sortTerms(collection, selection, OWN_VALUES), this.dialect) }
  }

  /**
   * What a write's RETURNING selects so that its row reads as `fields` would read it (see `itemsOfReturned`), for
   * fields a row can answer (`readFromRow`, which the writer checks before it asks).
   */
  returningColumns(collection: Collection, fields: readonly FieldNode[]): (string | Knex.Raw)[] {
    return this.statements.columns(collection, fields, OWN_VALUES)
  }

  /**
   * Rows a write returned through `returningColumns`, or `rowsByKeys` read right after it, shaped as a read of
   * `fields`: relations load now.
   */
  itemsOfReturned(db: Db, collection: Collection, fields: readonly FieldNode[], rows: readonly Row[]): Promise<Item[]> {
    if (!loadsRelations(fields)) return Promise.resolve(this.plainItems(collection, fields, rows))
    const budget = new RowBudget(this.maxLoadedRows)
    budget.spend(rows.length)
    return this.withRelations(db, collection, fields, rows, budget)
  }

  /**
   * The statement of one chunk of an export whose CSV the database writes (Dialect.csvCopy): `cells` as its
   * columns, and the list's filter, search, keyset, order, LIMIT and OFFSET, as `loadKeyed` would read them.
   */
  csvStatement(db: Db, collection: Collection, selection: Selection, cells: readonly SqlFragment[]): Knex.QueryBuilder {
    const joins = this.statements.countJoins(collection, OWN_VALUES)
    const columns = cells.map((cell) => this.knex.raw(cell.sql, [...cell.bindings]))
    const terms = this.statements.sortTerms(collection, selection, OWN_VALUES, joins)
    return this.statements.chunk(db, collection, selection, columns, terms, joins, OWN_VALUES)
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
    const joins = this.statements.countJoins(collection, OWN_VALUES)
    const terms = this.statements.sortTerms(collection, selection, OWN_VALUES, joins)
    const columns = [...fields.map((field) => selectColumn(this.knex, field, this.dialect)), ...keyColumns(this.knex, terms, this.dialect)]
    const qb = this.statements.chunk(db, collection, selection, columns, terms, joins, OWN_VALUES)
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

  /** Groups and summarizes the rows the query's filter and search select (`aggregate`, `groupBy`). */
  async aggregate(db: Db, collection: Collection, query: Selection & { aggregate: AggregateQuery }): Promise<Item[]> {
    if (query.limit === 0) return []
    const plan = planAggregate(collection, query)
    const rows = await this.templates
      .select(db, plan.key, plan.page, this.statements.aggregate(db, collection, query))
      .catch((error: unknown) => {
        throw aggregateError(error, collection, this.dialect)
      })
    return aggregatedItems(rows, query.aggregate, collection, this.dialect)
  }

  /** The rows of the page `plan` reads, its many-to-one items and key lists in their own columns. */
  private async page(db: Db, plan: ReadPlan, budget: RowBudget): Promise<Row[]> {
    if (plan.selection.limit === 0) return []
    const compile = this.statements.page(db, plan)
    const rows = await this.templates.select(db, plan.key, plan.page, compile, plan.bound, this.statements.around(plan))
    budget.spend(rows.length)
    return rows
  }

  /**
   * Builds the response objects, loading each relation node once for all rows. Without a relation to load (a key
   * list, plain fields) they are built at once, with no promise (see is-promise-like.ts).
   */
  private withRelations(
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
  private plainItems(collection: Collection, fields: readonly FieldNode[], rows: readonly Row[]): Item[] {
    return this.items(fields, rows, this.keysOf(collection, rows), new Map())
  }

  private keysOf(collection: Collection, rows: readonly Row[]): PrimaryKey[] {
    return rows.map((row) => rowKey(collection, row, this.dialect))
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
      } else if (node.kind === 'm2a') {
        relations.set(node, await this.anyItems(db, node, rows, budget))
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
          case 'm2a': {
            const reference = anyReference(node, row, this.dialect)
            item[node.output] =
              reference === null
                ? fromStorage(node.field, row[node.field.name], this.dialect)
                : (relations.get(node)?.get(anyId(reference.target, keyId(reference.key))) ?? null)
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
      ? await this.withRelations(db, related, node.children, own, budget)
      : this.plainItems(related, node.children, own)
    let position = 0
    const byKey = new Map<string, Item>()
    for (const id of found.keys()) byKey.set(id, items[position++]!)
    return byKey
  }

  /**
   * A many-to-any's items for these rows, by collection and key id (`anyId`): one read by key per collection
   * the request expands, whatever the number of rows.
   */
  private async anyItems(db: Db, node: AnyNode, rows: readonly Row[], budget: RowBudget): Promise<Map<string, Item>> {
    const keys = new Map<AnyTarget, Map<string, PrimaryKey>>(node.targets.map((target) => [target, new Map()]))
    for (const row of rows) {
      const reference = anyReference(node, row, this.dialect)
      if (reference !== null) keys.get(reference.target)!.set(keyId(reference.key), reference.key)
    }
    const found = new Map<string, Item>()
    for (const [target, wanted] of keys) {
      if (wanted.size === 0) continue
      const items = await this.byKeys(db, target.related, [...wanted.values()], target.children, target.scope, budget)
      for (const [id, item] of items) found.set(anyId(target, id), item)
    }
    return found
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
    const items = loadsRelations(fields)
      ? await this.withRelations(db, collection, fields, rows, budget)
      : this.plainItems(collection, fields, rows)
    return new Map(rows.map((row, index) => [keyId(rowKey(collection, row, this.dialect)), items[index]!]))
  }

  /**
   * The rows of `collection` with these keys and within `scope` as `fields` read them, before their relations:
   * what `itemsOfReturned` takes. One statement per chunk of keys.
   */
  async rowsByKeys(
    db: Db,
    collection: Collection,
    keys: readonly PrimaryKey[],
    fields: readonly FieldNode[],
    scope: FilterNode | null = null,
    budget = new RowBudget(this.maxLoadedRows),
  ): Promise<Row[]> {
    const plan = planByKeys(collection, keys, fields, scope, this.dialect)
    const rows: Row[] = []
    for (const stored of plan.chunks) {
      const found = await this.templates.select(
        db,
        plan.key,
        UNPAGED,
        this.statements.byKeys(db, collection, fields, scope, stored),
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
  private async children(db: Db, node: OneToMany, parentKeys: readonly PrimaryKey[], budget: RowBudget): Promise<Map<string, unknown[]>> {
    const { related, selection } = node
    const foreignKey = node.relation.foreignKey
    const fields: readonly FieldNode[] = node.children ?? related.key.map((field) => ({ kind: 'field', output: field.name, field }))
    const rows: Row[] = []
    if (selection.limit !== 0) {
      for (const part of chunk(parentKeys, keysPerStatement(this.dialect))) {
        const found = await this.childRows(db, planRelatedList(related, fields, foreignKey, part, selection, budget.cap(null)))
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
      // A composite key is listed as an object of its fields, the form a key list of a body takes.
      const key = related.primaryKey
      if (related.key.length > 1) for (const row of rows) add(row, keyObject(related, row, this.dialect))
      else for (const row of rows) add(row, fromStorage(key, row[key.name], this.dialect))
      return groups
    }
    const items = loadsRelations(fields)
      ? await this.withRelations(db, related, fields, rows, budget)
      : this.plainItems(related, fields, rows)
    rows.forEach((row, index) => add(row, items[index]))
    return groups
  }

  /**
   * The related rows of a chunk of parents, each parent's cut to its window, as `plan` reads them. A list read
   * `cut` whose plain read found some parent with more rows than its window keeps goes to the windowed statement
   * at once from its next read (`overflowing`), as lists of a small `deep[...][_limit]` usually do.
   */
  private childRows(db: Db, plan: ListPlan): Promise<Row[]> {
    const { related, fields, foreignKey, selection, bounds } = plan
    const plain = this.statements.relatedRows(db, related, fields, foreignKey, selection)
    if (plan.read === 'paged') return this.templates.select(db, plan.key, plan.page, plain)
    const windowed = (): Promise<Row[]> =>
      this.templates.select(
        db,
        plan.windowKey,
        plan.windowPage,
        this.statements.windowedRows(db, related, fields, foreignKey, selection, bounds),
        bounds,
      )
    if (plan.read === 'windowed') return windowed()
    const offset = bounds[0]!
    const limit = bounds[1]! - offset
    const seen = plan.key === null ? null : `${plan.key.key},${offset},${limit}`
    if (seen !== null && this.overflowing.get(seen) !== undefined) return windowed()
    return this.templates.select(db, plan.key, plan.page, plain).then((rows) => {
      if (rows.length <= plan.most) return windows(rows, foreignKey, offset, limit, this.dialect)
      if (seen !== null) this.overflowing.keep(seen, true)
      return windowed()
    })
  }
}
