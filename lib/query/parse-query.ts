// THE shared parameter parser: raw query-string object to a typed, validated Query, before any SQL exists.
import { InvalidPayloadError, InvalidQueryError } from '../errors'
import type { Collection } from '../schema/collection'
import { both } from './filter-node'
import { parseAggregateQuery } from './parse-aggregate'
import { parseFields } from './parse-fields'
import { newFilterBudget, parseFilter } from './parse-filter'
import { parseList } from './parse-list'
import { parseObjectParam } from './parse-object-param'
import { parsePagination } from './parse-pagination'
import { parseSearch } from './parse-search'
import { parseSort } from './parse-sort'
import { parseAfter } from './parse-after'
import { parseBacklink } from './parse-backlink'
import { parseExport } from './parse-export'
import { parseMeta } from './parse-meta'
import { parseVersion } from './parse-version'
import type { ParserOptions } from './parser-options'
import type { Query, Selection } from './query'
import type { QueryParameterName, RawParameters } from './query-parameters'

/**
 * Refuses a list parameter with more than `maxListEntries` entries before anything resolves them: 2,000
 * `groupBy` or `aggregate` entries would otherwise reach the database as that many columns.
 */
function checkListEntries(raw: RawParameters, max: number): void {
  const aggregate = raw.aggregate
  const aggregateEntries =
    aggregate !== null && typeof aggregate === 'object' && !Array.isArray(aggregate)
      ? Object.values(aggregate).reduce((sum: number, list) => sum + safeList(list, 'aggregate').length, 0)
      : 0
  const counts: Array<[string, number]> = [
    ['alias', safeObjectSize(raw.alias, 'alias')],
    ['fields', safeList(raw.fields, 'fields').length],
    ['sort', safeList(raw.sort, 'sort').length],
    ['groupBy', safeList(raw.groupBy, 'groupBy').length],
    ['aggregate', aggregateEntries],
  ]
  for (const [parameter, count] of counts) {
    if (count > max) throw new InvalidQueryError(`"${parameter}" has more than ${max} entries (maxListEntries)`)
  }
}

/** An object parameter's keys for counting; a malformed one counts as empty here and is refused by its own parser. */
function safeObjectSize(raw: unknown, parameter: string): number {
  try {
    return Object.keys(parseObjectParam(raw, parameter) ?? {}).length
  } catch {
    return 0
  }
}

/** A list's entries for counting; a malformed list counts as empty here and is refused by its own parser. */
function safeList(raw: unknown, parameter: string): string[] {
  try {
    return parseList(raw, parameter)
  } catch {
    return []
  }
}

export function parseQuery(raw: RawParameters, collection: Collection, given: ParserOptions, now = new Date()): Query {
  checkListEntries(raw, given.maxListEntries)
  // One budget for every filter of the request: the main one and each `deep` one.
  const options = { ...given, budget: newFilterBudget() }
  const backlink = parseBacklink(raw.backlink)
  const aggregate = parseAggregateQuery(raw, collection, options.schema)
  const scope = options.schema.scope(collection)
  // In the order a client reads the parameters, so the first broken one is the one reported.
  const fields = parseFields({ fields: raw.fields, deep: raw.deep, alias: raw.alias, backlink }, collection, options, now)
  const filter = both(scope, parseFilter(raw.filter, collection, options, now))
  const search = parseSearch(raw.search, collection, options.schema)
  // With aggregate or groupBy, sort names groups and aggregates; the aggregate query holds it.
  const sort = aggregate ? [] : parseSort(raw.sort, collection, options.schema)
  const exported = parseExport(raw.export)
  // An export of rows streams, so its bound is its own; groups are built in memory, so they keep maxLimit.
  const streamed = exported !== null && aggregate === null
  const limits = streamed ? { ...collection.limits, maxLimit: options.maxExportRows } : collection.limits
  const pagination = parsePagination(raw, limits, 'read', streamed ? 'maxExportRows' : 'maxLimit')
  const after = parseAfter(raw, collection, sort, options)
  const meta = parseMeta(raw.meta)
  return {
    fields,
    aggregate,
    scope,
    filter,
    search,
    sort,
    ...pagination,
    after,
    meta: after === null ? meta : { ...meta, nextCursor: true },
    backlink,
    version: parseVersion(raw.version),
    export: exported,
  }
}

/** What the `query` of a by-query write may hold. */
const SELECTION_PARAMETERS: readonly QueryParameterName[] = ['filter', 'search', 'sort', 'limit', 'offset', 'page']
const SELECTION_LIST = `${SELECTION_PARAMETERS.slice(0, -1).join(', ')} or ${SELECTION_PARAMETERS.at(-1)}`

/**
 * The `query` of a by-query PATCH or DELETE: which rows to change, among those the caller may read. Every
 * matching row unless it sets a limit. A key it does not know is refused, never ignored: a misspelt `filter`
 * would otherwise select every row. So is a query that neither narrows the rows (a filter or search of its own)
 * nor sets a limit, such as `{}` or an empty filter: a write to every row must ask for it, with `"limit": -1`.
 */
export function parseSelection(raw: unknown, collection: Collection, given: ParserOptions, now = new Date()): Selection {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new InvalidPayloadError(`"query" must be an object with ${SELECTION_LIST}`)
  }
  const unknown = Object.keys(raw).find((key) => !(SELECTION_PARAMETERS as readonly string[]).includes(key))
  if (unknown !== undefined) {
    throw new InvalidQueryError(`"query" has no parameter "${unknown}"; it takes ${SELECTION_LIST}`)
  }
  const query = raw as RawParameters
  const options = { ...given, budget: newFilterBudget() }
  const filter = parseFilter(query.filter, collection, options, now)
  const search = parseSearch(query.search, collection, options.schema)
  const limited = query.limit !== undefined && query.limit !== null && query.limit !== ''
  if (filter === null && search === null && !limited) {
    throw new InvalidQueryError('"query" selects every item: give a "filter" or "search", or "limit": -1 to change every item')
  }
  return {
    filter: both(options.schema.scope(collection), filter),
    search,
    sort: parseSort(query.sort, collection, options.schema),
    ...parsePagination(query, collection.limits, 'write'),
  }
}
