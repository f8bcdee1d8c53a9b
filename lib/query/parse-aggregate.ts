// Parses ?aggregate, ?groupBy and, with groupBy, ?sort (`-count.id`, a group field) into an AggregateQuery.
import { InvalidQueryError } from '../errors'
import type { Collection } from '../schema/collection'
import { isOrderable } from './orderable'
import type { SchemaView } from './schema-view'
import type { TypeFamily } from '../schema/field-types'
import { functionOutput, isFunctionCall, parseFunction } from './parse-function'
import { parseList } from './parse-list'
import { parseObjectParam } from './parse-object-param'
import { parseSort } from './parse-sort'
import type { AggregateFunction, AggregateNode, AggregateQuery, AggregateSortNode, GroupNode } from './query'

/** The type families each function accepts; `count` also takes `*`. */
const FUNCTIONS: Readonly<Record<AggregateFunction, readonly TypeFamily[]>> = Object.freeze({
  count: ['string', 'number', 'boolean', 'temporal', 'json', 'uuid', 'array', 'binary', 'geometry'],
  countDistinct: ['string', 'number', 'boolean', 'temporal', 'uuid'],
  sum: ['number'],
  sumDistinct: ['number'],
  avg: ['number'],
  avgDistinct: ['number'],
  min: ['number', 'temporal'],
  max: ['number', 'temporal'],
})

function parseAggregates(raw: unknown, collection: Collection, schema: SchemaView): AggregateNode[] {
  const functions = parseObjectParam(raw, 'aggregate', 'aggregate[function]=field,...')
  if (functions === null) return []
  const nodes: AggregateNode[] = []
  for (const [fn, list] of Object.entries(functions)) {
    if (!Object.hasOwn(FUNCTIONS, fn)) {
      throw new InvalidQueryError(`Unknown aggregate function "${fn}"; use ${Object.keys(FUNCTIONS).join(', ')}`)
    }
    const names = parseList(list, `aggregate[${fn}]`)
    if (names.length === 0) throw new InvalidQueryError(`"aggregate[${fn}]" names no field`)
    for (const name of names) {
      if (name === '*') {
        if (fn !== 'count') throw new InvalidQueryError(`"aggregate[${fn}]" needs a field; only count takes *`)
        nodes.push({ fn, field: null })
        continue
      }
      const member = schema.member(collection, name)
      if (!member) throw new InvalidQueryError(`Field "${name}" does not exist in collection "${collection.name}"`)
      if (member.kind !== 'field' || !FUNCTIONS[fn as AggregateFunction].includes(member.spec.family)) {
        throw new InvalidQueryError(`"aggregate[${fn}]" does not apply to field "${name}"`)
      }
      nodes.push({ fn: fn as AggregateFunction, field: member })
    }
  }
  if (
    nodes.some((node) => node.fn === 'count' && node.field === null) &&
    nodes.some((node) => node.fn === 'count' && node.field !== null)
  ) {
    // Both would answer under "count": a number for *, an object of fields otherwise.
    throw new InvalidQueryError('"aggregate[count]" takes either * or fields, not both')
  }
  return nodes
}

function parseGroupBy(raw: unknown, collection: Collection, schema: SchemaView): GroupNode[] {
  return parseList(raw, 'groupBy').map((name): GroupNode => {
    if (isFunctionCall(name)) {
      const operand = parseFunction(name, collection, schema)
      if (operand.kind !== 'datePart') throw new InvalidQueryError(`"groupBy" takes fields and date functions, not "${name}"`)
      return { output: functionOutput(name), field: operand.field, operand }
    }
    const member = schema.member(collection, name)
    if (!member) throw new InvalidQueryError(`Field "${name}" does not exist in collection "${collection.name}"`)
    if (!isOrderable(member)) throw new InvalidQueryError(`"groupBy" cannot group by "${name}"`)
    return { output: name, field: member }
  })
}

/** `sort` entries name a group (`status`, `year(published_at)`) or an aggregate (`count`, `-count.id`). */
function parseAggregateSort(raw: unknown, aggregates: readonly AggregateNode[], groupBy: readonly GroupNode[]): AggregateSortNode[] {
  const sort = parseList(raw, 'sort').map((entry): AggregateSortNode => {
    const direction = entry.startsWith('-') ? 'desc' : 'asc'
    const name = entry.replace(/^[-+]/, '')
    const output = isFunctionCall(name) ? functionOutput(name) : name
    const group = groupBy.find((candidate) => candidate.output === output)
    if (group) return { target: { kind: 'group', group }, direction }
    const [fn, field] = name.split('.')
    const aggregate = aggregates.find((candidate) => candidate.fn === fn && (candidate.field?.name ?? undefined) === field)
    if (aggregate) return { target: { kind: 'aggregate', aggregate }, direction }
    throw new InvalidQueryError(
      `Cannot sort by "${name}": with aggregate or groupBy, sort by a group field or an aggregate such as count.id`,
    )
  })
  // The group keys, ascending, end every order: groups with equal aggregates come out the same everywhere.
  for (const group of groupBy) {
    if (!sort.some(({ target }) => target.kind === 'group' && target.group === group))
      sort.push({ target: { kind: 'group', group }, direction: 'asc' })
  }
  return sort
}

/**
 * Without groupBy the answer is one row, so an order means nothing there, and Directus answers such a request as if
 * it had no sort: a client that reads a list's total by re-sending the list's own parameters (the Refine data
 * provider sends `aggregate[countDistinct]=id&sort=title`) is served. Each entry must still name an aggregate or a
 * sortable field, so a typo stays a 400.
 */
function checkIgnoredSort(raw: unknown, aggregates: readonly AggregateNode[], collection: Collection, schema: SchemaView): [] {
  for (const entry of parseList(raw, 'sort')) {
    const [fn, field] = entry.replace(/^[-+]/, '').split('.')
    const aggregate = aggregates.some((candidate) => candidate.fn === fn && (candidate.field?.name ?? undefined) === field)
    if (!aggregate) parseSort(entry, collection, schema)
  }
  return []
}

/** Null when the request neither aggregates nor groups. */
export function parseAggregateQuery(
  raw: { aggregate?: unknown; groupBy?: unknown; sort?: unknown },
  collection: Collection,
  schema: SchemaView,
): AggregateQuery | null {
  if (raw.aggregate === undefined && raw.groupBy === undefined) return null
  const aggregates = parseAggregates(raw.aggregate, collection, schema)
  const groupBy = parseGroupBy(raw.groupBy, collection, schema)
  if (aggregates.length === 0 && groupBy.length === 0) throw new InvalidQueryError('"aggregate" and "groupBy" are both empty')
  const sort =
    groupBy.length === 0 ? checkIgnoredSort(raw.sort, aggregates, collection, schema) : parseAggregateSort(raw.sort, aggregates, groupBy)
  return { aggregates, groupBy, sort }
}
