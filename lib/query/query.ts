// The typed Query every handler works from: produced by the parser, consumed by the repository.
import type { Collection, Field, O2MRelation } from '../schema/collection'
import type { FilterNode } from './filter-node'

export type DatePart = 'year' | 'month' | 'week' | 'day' | 'weekday' | 'hour' | 'minute' | 'second'

export interface DatePartOperand {
  readonly kind: 'datePart'
  readonly part: DatePart
  readonly field: Field
}

/**
 * A computed integer: a part of a date or time (`year(published_at)`; week is the ISO week, weekday 0 =
 * Sunday, both in UTC for timestamps) or the number of related items (`count(comments)`).
 */
export type FunctionOperand =
  | DatePartOperand
  | {
      readonly kind: 'count'
      readonly related: Collection
      readonly foreignKey: Field
      readonly parentKey: Field
      /** The related rows the caller may see (see SchemaView.scope); null: all. Only these are counted. */
      readonly scope: FilterNode | null
    }

/** One collection a many-to-any's item is expanded in (`fields=blocks.item:block_text.*`). */
export interface AnyTarget {
  readonly related: Collection
  readonly children: readonly FieldNode[]
  readonly scope: FilterNode | null
}

/** One entry of the response object, in request order. */
export type FieldNode =
  /** A column value (for a many-to-one: the related key). */
  | { readonly kind: 'field'; readonly output: string; readonly field: Field }
  /** A computed value: `fields=year(published_at)` answers `published_at_year`. */
  | { readonly kind: 'function'; readonly output: string; readonly operand: FunctionOperand }
  /** A many-to-one expanded into the related item (null when there is none, or `scope` leaves it out). */
  | {
      readonly kind: 'm2o'
      readonly output: string
      readonly field: Field
      readonly related: Collection
      readonly children: readonly FieldNode[]
      readonly scope: FilterNode | null
    }
  /**
   * A many-to-any's item expanded: in each row, the item of the collection its `collectionField` names, shaped
   * by that collection's `children`; the stored key for a collection the request expands no field of; null when
   * there is none, or the collection's `scope` leaves it out.
   */
  | {
      readonly kind: 'm2a'
      readonly output: string
      readonly field: Field
      readonly targets: readonly AnyTarget[]
    }
  /**
   * A one-to-many alias: the related items shaped by `children`, or their primary keys when `children` is null.
   * `selection` (from `deep`, its filter holding the related scope) filters, orders and limits the list of each
   * parent separately.
   */
  | {
      readonly kind: 'o2m'
      readonly output: string
      readonly relation: O2MRelation
      readonly related: Collection
      readonly children: readonly FieldNode[] | null
      readonly selection: Selection
    }

export interface SortNode {
  readonly field: Field
  readonly direction: 'asc' | 'desc'
  /**
   * The many-to-one hops crossed to reach `field` (`sort=author.name`: author → authors); empty for a local
   * field. A related item outside the hop's `scope` sorts as if there were none.
   */
  readonly path: readonly { readonly field: Field; readonly related: Collection; readonly scope: FilterNode | null }[]
  /** Set when sorting by a function (`sort=-count(comments)`); `field` is then the function's own field. */
  readonly operand?: FunctionOperand
}

export interface MetaRequest {
  readonly totalCount: boolean
  readonly filterCount: boolean
  /** `meta=total_count_estimate`: the planner's estimate of `total_count` where the database keeps one. */
  readonly totalCountEstimate?: boolean
  /** `meta=next_cursor`, or a `cursor` given: the cursor of the page after this one. */
  readonly nextCursor?: boolean
}

export type AggregateFunction = 'count' | 'countDistinct' | 'sum' | 'sumDistinct' | 'avg' | 'avgDistinct' | 'min' | 'max'

/** One aggregate value: `count` of `*` (field null) or of a field's non-null values, `sum` of a field, ... */
export interface AggregateNode {
  readonly fn: AggregateFunction
  /** null: `count=*`, every row. */
  readonly field: Field | null
}

/** One group key: a field, or a date part of one (`groupBy=year(published_at)` answers `published_at_year`). */
export interface GroupNode {
  readonly output: string
  readonly field: Field
  readonly operand?: DatePartOperand
}

export interface AggregateSortNode {
  readonly target: { readonly kind: 'group'; readonly group: GroupNode } | { readonly kind: 'aggregate'; readonly aggregate: AggregateNode }
  readonly direction: 'asc' | 'desc'
}

/** `aggregate` and `groupBy`: rows are grouped and summarized instead of listed. */
export interface AggregateQuery {
  readonly aggregates: readonly AggregateNode[]
  readonly groupBy: readonly GroupNode[]
  /**
   * Replaces the Query's sort: group keys (default, ascending) and aggregate values (`sort=-count.id`). Empty
   * without groupBy: the answer is one row, and the request's sort, once checked, is ignored.
   */
  readonly sort: readonly AggregateSortNode[]
}

/** `?search`: a non-empty term and the fields the caller may search in. */
export interface Search {
  readonly term: string
  readonly fields: readonly Field[]
}

/** Which rows, in which order: the part of a Query that a by-query write or a count also uses. */
export interface Selection {
  /** The request's filter AND the rows the caller may see; null: every row. */
  readonly filter: FilterNode | null
  readonly search: Search | null
  /** Always ends with the primary key, so pages are stable. */
  readonly sort: readonly SortNode[]
  /** null: every row. */
  readonly limit: number | null
  readonly offset: number
  /**
   * The sort keys of the item just before the first one wanted (from a `cursor`), one per sort node; the page
   * starts after it instead of at `offset`. Unset or null: from the start.
   */
  readonly after?: readonly unknown[] | null
}

/** `export`: the matching rows streamed as a download in this format instead of a JSON page. */
export type ExportFormat = 'json' | 'csv' | 'ndjson'

export interface Query extends Selection {
  /** The rows the caller may see at all (part of `filter` already); `meta.total_count` counts these. */
  readonly scope: FilterNode | null
  readonly fields: readonly FieldNode[]
  /** Set when the request groups or summarizes (`aggregate`, `groupBy`); `fields` is then ignored. */
  readonly aggregate: AggregateQuery | null
  readonly meta: MetaRequest
  readonly backlink: boolean
  /** A content-version key, or null for the item itself. */
  readonly version: string | null
  /** Set for a download (`export`): the rows stream in this format, bounded by `maxExportRows`. */
  readonly export?: ExportFormat | null
}
