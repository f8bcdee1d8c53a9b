// The decisions of a page read, made before any SQL exists: which many-to-one items the page's statement joins,
// which key lists a one-item read folds into its statement, which of the page's columns the join links on, the
// page's LIMIT under the row budget, and the statement's key, written once from those decisions. A ReadPlan is a
// plain value (`describeReadPlan` prints it); sql/read-statements.ts turns it into SQL, statement-templates.ts keeps
// that SQL as a template under the plan's key.
import type { AggregateQuery, FieldNode, Selection, SortNode } from '../query/query'
import type { Collection, Field } from '../schema/collection'
import type { PrimaryKey } from '../types'
import type { Dialect } from '../dialects'
import { QueryKey } from '../query/query-key'
import { columnValue, toStorage } from '../dialects/storage'

export type ManyToOne = Extract<FieldNode, { kind: 'm2o' }>
export type OneToMany = Extract<FieldNode, { kind: 'o2m' }>

/** A statement's LIMIT and OFFSET, bound after its own values; null: no LIMIT. */
export interface Page {
  readonly limit: number | null
  readonly offset: number
}

/** A key list that a one-item read's statement brings, with the values its subquery binds (the parent's key, LIMIT, OFFSET). */
export interface FoldedList {
  readonly node: OneToMany
  readonly bound: readonly unknown[]
}

/**
 * The page's columns the statement around it joins on (one per relation) and orders by (one per sort term). Where
 * the page already selects the value needed, under the field's name, that column serves, and the page selects
 * no copy of it: a list of 25 by `-rating` with `author.name` reads 6 columns instead of 9, which the driver
 * parses in every row. The others are copies the page adds, named `joinKey(index)` and `orderColumn(index)`.
 */
export interface PageLinks {
  readonly joinKeys: readonly string[]
  readonly orderColumns: readonly string[]
}

export interface ReadPlan {
  readonly collection: Collection
  readonly fields: readonly FieldNode[]
  readonly selection: Selection
  /** The statement also selects each row's sort keys (a cursor page, an export chunk). */
  readonly keyed: boolean
  /** The many-to-one items the page's statement joins, each under its index. */
  readonly joined: readonly ManyToOne[]
  /** The key lists the statement folds into a column each, under its index. */
  readonly folded: readonly FoldedList[]
  /** Which page columns the join links on; null without joined items. */
  readonly links: PageLinks | null
  /** The page's LIMIT (the row budget's cap) and OFFSET. */
  readonly page: Page
  /** The values the statement binds besides its comparisons and its page: the folded lists', in order. */
  readonly bound: readonly unknown[]
  /** The statement's key, with the comparisons whose values it binds; null: compiled for each request. */
  readonly key: QueryKey | null
}

/** The page columns the statement around the page joins on, and orders by, when the page holds no such column. */
export const joinKey = (relation: number): string => `__items_m2o_key_${relation}`
export const orderColumn = (term: number): string => `__items_order_${term}`

/**
 * Most keys a folded list may hold (the default `maxLimit`), so that the one value it makes stays small. A longer
 * list, under a raised limit and row budget, has a statement of its own.
 */
export const MAX_FOLDED_KEYS = 1000

/** Whether a sort node orders by a field of the collection's own rows (no relation, no function). */
export const ownSort = (node: SortNode): boolean => node.path.length === 0 && node.operand === undefined

/** Whether a sort key can be NULL: a relational or computed key always can (no related row, no date). */
export const mayBeNull = (node: SortNode): boolean => node.path.length > 0 || node.operand !== undefined || node.field.nullable

/**
 * The fields a statement reads for `fields`: the key's fields, then fields and many-to-one keys, and a
 * many-to-any's key and the collection it names.
 */
export function readFields(collection: Collection, fields: readonly FieldNode[]): Set<Field> {
  const read = new Set<Field>(collection.key)
  for (const node of fields) {
    if (node.kind === 'field' || node.kind === 'm2o') read.add(node.field)
    else if (node.kind === 'm2a') read.add(node.field).add(node.field.referencesAny!.collectionField)
  }
  return read
}

export interface PageReadOptions {
  /** Select each row's sort keys too. */
  readonly keyed: boolean
  /** The LIMIT the row budget allows for the page's own limit (see RowBudget.cap). */
  readonly limit: number | null
  /** The key of the one item the read picks, and at most how many keys a folded list of it may hold. */
  readonly oneItem: { readonly key: PrimaryKey; readonly foldedKeys: number; readonly cap: (limit: number | null) => number | null } | null
}

/** The plan of a page's statement (a list, a cursor page, an export chunk, one item by key). */
export function planPageRead(
  collection: Collection,
  fields: readonly FieldNode[],
  selection: Selection,
  dialect: Dialect,
  { keyed, limit, oneItem }: PageReadOptions,
): ReadPlan {
  const joined = joinedRelations(fields, selection, dialect)
  const folded =
    oneItem === null ? [] : foldedLists(fields, oneItem.key, Math.min(oneItem.foldedKeys, MAX_FOLDED_KEYS), oneItem.cap, dialect)
  const links = joined.length > 0 ? pageLinks(collection, fields, selection, joined, dialect) : null
  // A search or a cursor binds values outside the filter's comparisons: such statements are compiled each time.
  let key: QueryKey | null = null
  if (selection.search === null && !selection.after) {
    key = new QueryKey('items').schema(collection).word(String(keyed)).columns(fields).filter(selection.filter).sort(selection.sort)
    for (const node of joined) key.word('joined').schema(node.related).columns(node.children)
    for (const { node, bound } of folded)
      key.word('folded').schema(node.relation.foreignKey).sort(node.selection.sort).word(String(bound.length))
  }
  return {
    collection,
    fields,
    selection,
    keyed,
    joined,
    folded,
    links,
    page: { limit, offset: selection.offset },
    bound: folded.flatMap((list) => list.bound),
    key,
  }
}

/** A grouped aggregate's statement: its page, and its key; null: compiled for each request (a search binds a value). */
export function planAggregate(
  collection: Collection,
  query: Selection & { aggregate: AggregateQuery },
): { page: Page; key: QueryKey | null } {
  const key = query.search === null ? new QueryKey('aggregate').schema(collection).filter(query.filter).aggregate(query.aggregate) : null
  return { page: { limit: query.limit, offset: query.offset }, key }
}

/**
 * The many-to-one items of `fields` that a page's own statement reads, sparing a statement (over a network, a
 * round trip) each: where the dialect joins them and the page is sorted by its own columns, for a relation
 * without scope or computed field. The others are read by statements of their own. A key and the key it
 * references always have one type (build-schema.ts), so the join compares like with like.
 */
function joinedRelations(fields: readonly FieldNode[], selection: Selection, dialect: Dialect): ManyToOne[] {
  const ownOrder = selection.sort.length > 0 && selection.sort.every(ownSort)
  if (!dialect.joinsManyToOne || !ownOrder) return []
  return fields.filter(
    (node): node is ManyToOne => node.kind === 'm2o' && node.scope === null && node.children.every((child) => child.kind !== 'function'),
  )
}

/**
 * The key lists (one-to-many fields without children) that a one-item read's own statement brings, sparing a
 * statement each: where the dialect has the aggregate (`keyPairs`), for integer keys (exact in JSON), with no
 * filter (a caller's scope, `deep`), search or relational sort, and a LIMIT (the list's, or the row budget's)
 * of at most `most` keys. Each is limited as its own statement would be, so the row budget counts the same
 * rows. The others are read by statements of their own.
 */
function foldedLists(
  fields: readonly FieldNode[],
  key: PrimaryKey,
  most: number,
  cap: (limit: number | null) => number | null,
  dialect: Dialect,
): FoldedList[] {
  // `most` 0: no list may fold, not even one of LIMIT 0, which a server without the aggregate cannot compile.
  if (most === 0) return []
  return fields.flatMap((node) => {
    if (node.kind !== 'o2m' || node.children !== null || node.related.key.length > 1 || node.related.primaryKey.type !== 'integer')
      return []
    const { filter, search, sort, offset } = node.selection
    const limit = cap(node.selection.limit)
    if (filter !== null || search !== null || limit === null || limit > most || !sort.every(ownSort)) return []
    const parent = toStorage(node.relation.foreignKey, key, dialect)
    return [{ node, bound: offset > 0 ? [parent, limit, offset] : [parent, limit] }]
  })
}

/**
 * Which page columns the statement around the page joins and orders by (see PageLinks). A field the page
 * selects holds `columnValue` of its column, as an own sort term orders by it, unless the dialect reads it
 * through a text cast or it is an array; a join key must also be the bare column, as the related key is.
 */
function pageLinks(
  collection: Collection,
  fields: readonly FieldNode[],
  selection: Selection,
  joined: readonly ManyToOne[],
  dialect: Dialect,
): PageLinks {
  const selected = readFields(collection, fields)
  const readAsValued = (field: Field): boolean =>
    selected.has(field) && field.spec.family !== 'array' && field.type !== 'geometry' && !dialect.readAsText.has(field.type)
  const bare = (field: Field): boolean => readAsValued(field) && columnValue(field, field.column, dialect).sql === '??'
  return {
    joinKeys: joined.map((node, index) => (bare(node.field) ? node.field.name : joinKey(index))),
    // Every sort term is the page's own here (see joinedRelations).
    orderColumns: selection.sort.map((node, index) => (readAsValued(node.field) ? node.field.name : orderColumn(index))),
  }
}

/** The plan as text, one decision a line: for logs, specs and a maintainer's console. */
export function describeReadPlan(plan: ReadPlan): string {
  const names = (nodes: readonly FieldNode[]): string => nodes.map((node) => node.output).join(', ') || '-'
  return [
    `read ${plan.collection.name}${plan.keyed ? ' (keyed)' : ''}`,
    `page: limit ${plan.page.limit ?? 'none'}, offset ${plan.page.offset}`,
    `joined: ${names(plan.joined)}`,
    `folded: ${names(plan.folded.map((list) => list.node))}`,
    `links: ${plan.links === null ? '-' : `join on ${plan.links.joinKeys.join(', ')}; order by ${plan.links.orderColumns.join(', ')}`}`,
    `key: ${plan.key === null ? 'none (compiled for each request)' : plan.key.key}`,
  ].join('\n')
}
