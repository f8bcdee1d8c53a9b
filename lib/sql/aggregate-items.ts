// Compiles an AggregateQuery into one GROUP BY statement, and decodes its rows to the same JSON everywhere.
import type { Knex } from 'knex'
import type { AggregateNode, AggregateQuery, GroupNode } from '../query/query'
import type { Collection, Field } from '../schema/collection'
import type { Item } from '../types'
import { compileDatePart } from './compile-filter'
import type { Dialect, DriverError, SqlFragment } from '../dialects'
import { columnValue, fromStorage } from '../dialects/storage'
import { ItemsError } from '../errors'

/**
 * Each function over the column placeholder `??`. Averages are taken over doubles (MySQL would answer a
 * DECIMAL with four more digits than its input, PostgreSQL a NUMERIC); text is grouped and counted exactly.
 * Sums and averages that are doubles raise an error when they overflow, on every database (see `outOfRange`).
 */
function aggregateSql(node: AggregateNode & { field: Field }, dialect: Dialect): string {
  const exactSum = dialect.exactSum !== null && node.field.spec.exact
  const text = node.field.spec.text
  switch (node.fn) {
    case 'count':
      return 'count(??)'
    case 'countDistinct':
      return `count(distinct ${text ? dialect.exactTextValue('??') : '??'})`
    // Exact sums stay exact (decimals and big integers have no double to overflow).
    case 'sum':
      return exactSum ? `${dialect.exactSum}(??)` : node.field.spec.exact ? 'sum(??)' : dialect.overflowChecked('sum(??)')
    case 'sumDistinct':
      return exactSum
        ? `${dialect.exactSum}(distinct ??)`
        : node.field.spec.exact
          ? 'sum(distinct ??)'
          : dialect.overflowChecked('sum(distinct ??)')
    case 'avg':
      return dialect.overflowChecked(`avg(${dialect.toDouble('??')})`)
    case 'avgDistinct':
      return dialect.overflowChecked(`avg(distinct ${dialect.toDouble('??')})`)
    case 'min':
      return 'min(??)'
    case 'max':
      return 'max(??)'
  }
}

const groupAlias = (index: number): string => `__items_group_${index}`
const aggregateAlias = (index: number): string => `__items_aggregate_${index}`

function groupExpression(group: GroupNode, table: string, dialect: Dialect): SqlFragment {
  if (group.operand) return compileDatePart(group.operand, table, dialect)
  const text = group.field.spec.text
  const column = columnValue(group.field, `${table}.${group.field.column}`, dialect)
  return text ? { sql: dialect.exactTextValue(column.sql), bindings: column.bindings } : column
}

/** A group key as selected: read through the dialect's text cast where the type needs it, like any column. */
function groupSelect(group: GroupNode, table: string, dialect: Dialect): SqlFragment {
  const expression = groupExpression(group, table, dialect)
  return !group.operand && dialect.readAsText.has(group.field.type)
    ? { sql: dialect.textCast.replace('??', expression.sql), bindings: expression.bindings }
    : expression
}

function aggregateSelect(node: AggregateNode, table: string, dialect: Dialect): SqlFragment {
  if (node.field === null) return { sql: 'count(*)', bindings: [] }
  const sql = aggregateSql({ ...node, field: node.field }, dialect)
  // min and max keep the field's type, so they read through the same text cast as the column itself.
  const cast = (node.fn === 'min' || node.fn === 'max') && dialect.readAsText.has(node.field.type)
  const column = columnValue(node.field, `${table}.${node.field.column}`, dialect)
  // `sql` names the column once, as `??`; a stored temporal's reading takes its place.
  const [before, after] = [sql.slice(0, sql.indexOf('??')), sql.slice(sql.indexOf('??') + 2)]
  const applied = `${before}${column.sql}${after}`
  return { sql: cast ? dialect.textCast.replace('??', applied) : applied, bindings: column.bindings }
}

/**
 * Counts and averages are numbers; sums keep exact types as text (bigInteger, decimal) and numbers otherwise;
 * min and max answer in the field's own JSON form.
 */
function decode(node: AggregateNode, raw: unknown, collection: Collection, dialect: Dialect): unknown {
  if (raw === null || raw === undefined) return null
  const field = node.field
  if (field === null || node.fn === 'count' || node.fn === 'countDistinct') return Number(raw)
  if (node.fn === 'min' || node.fn === 'max') return fromStorage(field, raw, dialect)
  // Exact sums arrive as decimal text on every database (SQLite's through items_exact_sum).
  if (field.spec.exact && (node.fn === 'sum' || node.fn === 'sumDistinct')) return fromStorage(field, raw, dialect)
  // SQLite answers an overflowing sum or average as an infinity, which JSON would turn into null.
  const value = Number(raw)
  if (!Number.isFinite(value)) throw outOfRange(collection)
  return value
}

/**
 * The one answer to a sum or average of doubles that overflows, on every database: PostgreSQL's and MySQL's
 * out-of-range errors (see `Dialect.overflowChecked`) and SQLite's infinity all become this 400.
 */
export function outOfRange(collection: Collection, cause?: unknown): ItemsError {
  return new ItemsError(
    'VALUE_OUT_OF_RANGE',
    'An aggregate is out of range: a sum or average exceeds the largest double.',
    { collection: collection.name },
    cause === undefined ? undefined : { cause },
  )
}

/** Directus's shape: `{ count: 10 }` for `count=*`, `{ sum: { rating: 42 } }` for a field. */
function place(item: Item, node: AggregateNode, value: unknown): void {
  if (node.field === null) {
    item[node.fn] = value
    return
  }
  const bucket = (item[node.fn] ??= {}) as Record<string, unknown>
  bucket[node.field.name] = value
}

/** Adds the grouping, the aggregates and their order to `qb` (already filtered); the caller adds the window. */
export function aggregateStatement(
  knex: Knex,
  qb: Knex.QueryBuilder,
  collection: Collection,
  aggregate: AggregateQuery,
  dialect: Dialect,
): Knex.QueryBuilder {
  const table = collection.table
  const selects = [
    ...aggregate.groupBy.map((group, index) => ({ ...groupSelect(group, table, dialect), alias: groupAlias(index) })),
    ...aggregate.aggregates.map((node, index) => ({ ...aggregateSelect(node, table, dialect), alias: aggregateAlias(index) })),
  ]
  qb.select(selects.map(({ sql, bindings, alias }) => knex.raw(`${sql} as ??`, [...bindings, alias])))
  for (const group of aggregate.groupBy) {
    const { sql, bindings } = groupExpression(group, table, dialect)
    qb.groupByRaw(sql, bindings)
  }
  for (const { target, direction } of aggregate.sort) {
    // Groups order by their expression (PostgreSQL allows COLLATE there, not on an output alias); aggregates by alias.
    const term =
      target.kind === 'group'
        ? dialect.orderBy(groupExpression(target.group, table, dialect), direction, !target.group.operand && target.group.field.spec.text)
        : dialect.orderBy({ sql: '??', bindings: [aggregateAlias(aggregate.aggregates.indexOf(target.aggregate))] }, direction, false)
    qb.orderByRaw(term.sql, term.bindings)
  }
  return qb
}

/** The error to answer for a failed `aggregateStatement`: an overflow is `outOfRange`, anything else itself. */
export function aggregateError(error: unknown, collection: Collection, dialect: Dialect): unknown {
  if (typeof error !== 'object' || error === null || error instanceof ItemsError) return error
  return dialect.recogniseError(error as DriverError, collection)?.code === 'VALUE_OUT_OF_RANGE' ? outOfRange(collection, error) : error
}

/** The rows of an `aggregateStatement` as items: each group's keys and aggregates in the API's JSON. */
export function aggregatedItems(
  rows: readonly Record<string, unknown>[],
  aggregate: AggregateQuery,
  collection: Collection,
  dialect: Dialect,
): Item[] {
  return rows.map((row) => {
    const item: Item = {}
    aggregate.groupBy.forEach((group, index) => {
      const raw = row[groupAlias(index)]
      item[group.output] = group.operand ? (raw === null ? null : Number(raw)) : fromStorage(group.field, raw, dialect)
    })
    aggregate.aggregates.forEach((node, index) => place(item, node, decode(node, row[aggregateAlias(index)], collection, dialect)))
    return item
  })
}
