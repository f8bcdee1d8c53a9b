// The decisions of the statements that read a page's relations, made before any SQL exists: the one-to-many
// lists of a chunk of parents (a plain LIMIT for one parent, a plain read cut per parent in the router, or a
// window numbered by ROW_NUMBER()), and items by key in chunks below the driver's parameter limit. Each decision
// is a plain value whose statement key is written once here, from the decision.
import type { FieldNode, Selection } from '../query/query'
import { fieldIn, type FilterNode } from '../query/filter-node'
import type { Collection, Field } from '../schema/collection'
import type { PrimaryKey } from '../types'
import type { Dialect } from '../dialects'
import { QueryKey } from '../query/query-key'
import { storedKey, toStorage } from '../dialects/storage'
import type { Page } from './read-plan'

/**
 * Keys per IN list: half the driver's bind-variable limit, leaving the other half for the filter (at most
 * `maxFilterConditions` values), the caller's scope and the search that the same statement binds.
 */
export const keysPerStatement = (dialect: Dialect): number => Math.floor(dialect.maxParameters / 2)

export function chunk<T>(values: readonly T[], size: number): T[][] {
  const chunks: T[][] = []
  for (let start = 0; start < values.length; start += size) chunks.push(values.slice(start, start + size))
  return chunks
}

/** The statements that read items of `collection` by key: one per chunk of keys, each under one key. */
export interface KeysPlan {
  readonly collection: Collection
  readonly fields: readonly FieldNode[]
  readonly scope: FilterNode | null
  /** The keys of each statement, as the database stores them (a composite key's components one after another). */
  readonly chunks: readonly (readonly unknown[])[]
  readonly key: QueryKey
}

export function planByKeys(
  collection: Collection,
  keys: readonly PrimaryKey[],
  fields: readonly FieldNode[],
  scope: FilterNode | null,
  dialect: Dialect,
): KeysPlan {
  const pk = collection.primaryKey
  const { key } = collection
  // A composite key binds each of its components: a chunk holds them flat, key after key.
  const stored =
    key.length === 1
      ? (part: readonly PrimaryKey[]) => part.map((one) => toStorage(pk, one, dialect))
      : (part: readonly PrimaryKey[]) => part.flatMap((one) => storedKey(collection, one, dialect))
  return {
    collection,
    fields,
    scope,
    chunks: chunk(keys, Math.floor(keysPerStatement(dialect) / key.length)).map(stored),
    key: new QueryKey('keys').schema(collection).columns(fields).filter(scope),
  }
}

/**
 * How one chunk of parents' lists is read, each parent's cut to its window (a per-parent limit or offset):
 * - `paged`: one statement with a plain LIMIT and OFFSET: one parent (a one-item read), or no window at all;
 * - `windowed`: each parent's rows numbered with ROW_NUMBER() (SQLite 3.25+, MariaDB 10.2+, MySQL 8, PostgreSQL),
 *   the window kept in SQL: for an offset without a limit;
 * - `cut`: a plain read of at most as many rows as the windows could keep (`most`), each parent's window cut in
 *   the router; when some parent has more, the `windowed` statement, which the router then sends the list's
 *   later reads to at once (the window function costs the database more than the rows it spares; the bench's
 *   relational rows guard that choice, see docs/internals/reads.md).
 */
export interface ListPlan {
  readonly related: Collection
  readonly fields: readonly FieldNode[]
  readonly foreignKey: Field
  /** The list's selection, its filter narrowed to the chunk's parents. */
  readonly selection: Selection
  readonly read: 'paged' | 'windowed' | 'cut'
  /** The plain statement's LIMIT and OFFSET (`paged`, `cut`). */
  readonly page: Page
  /** The windowed statement's LIMIT (the row budget's), and its rank bounds: after the offset, up to the limit. */
  readonly windowPage: Page
  readonly bounds: readonly number[]
  /** `cut`: the most rows the windows could keep; a plain read holding more overflows. */
  readonly most: number
  /** The plain and the windowed statements' keys; null: compiled for each request (a search binds a value). */
  readonly key: QueryKey | null
  readonly windowKey: QueryKey | null
}

export function planRelatedList(
  related: Collection,
  fields: readonly FieldNode[],
  foreignKey: Field,
  parents: readonly PrimaryKey[],
  list: Selection,
  cap: number | null,
): ListPlan {
  const byParent = fieldIn(foreignKey, parents)
  const selection = { ...list, filter: list.filter ? { kind: 'and' as const, children: [byParent, list.filter] } : byParent }
  const keyOf = (kind: 'children' | 'window'): QueryKey | null =>
    list.search === null
      ? new QueryKey(kind).schema(related).columns(fields).schema(foreignKey).filter(selection.filter).sort(list.sort)
      : null
  const { limit, offset } = list
  const bounds = limit === null ? [offset] : [offset, offset + limit]
  const common = { related, fields, foreignKey, selection, bounds, windowPage: { limit: cap, offset: 0 }, key: keyOf('children') }
  if ((limit === null && offset === 0) || parents.length === 1) {
    const paged = limit === null ? cap : cap === null ? limit : Math.min(limit, cap)
    return { ...common, read: 'paged', page: { limit: paged, offset }, most: 0, windowKey: null }
  }
  if (limit === null) return { ...common, read: 'windowed', page: { limit: null, offset: 0 }, most: 0, windowKey: keyOf('window') }
  // Neither read asks for more than one row past the row budget (`cap`).
  const most = Math.min(parents.length * (offset + limit), cap === null ? Number.POSITIVE_INFINITY : cap - 1)
  return { ...common, read: 'cut', page: { limit: most + 1, offset: 0 }, most, windowKey: keyOf('window') }
}
