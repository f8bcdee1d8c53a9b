// THE shared parameter parser: raw query-string object to a typed, validated Query, before any SQL exists.
import { InvalidPayloadError, InvalidQueryError } from '../errors'
import type { Collection } from '../schema/collection'
import { unstorableText } from '../schema/field-types'
import { both } from './filter-node'
import { parseAggregateQuery } from './parse-aggregate'
import { parseFields, type FieldsOptions } from './parse-fields'
import { newFilterBudget, parseFilter } from './parse-filter'
import { parseList, parseSingle } from './parse-list'
import { parseObjectParam } from './parse-object-param'
import { parsePagination } from './parse-pagination'
import { parseSearch } from './parse-search'
import { parseSort } from './parse-sort'
import { decodeCursor } from './cursor'
import type { ExportFormat, MetaRequest, Query, Selection, SortNode } from './query'
import type { QueryParameterName, RawParameters } from './query-parameters'
import { extended } from '../extended'

const MAX_VERSION_KEY_LENGTH = 64

const META_ENTRIES: Readonly<Record<string, keyof MetaRequest>> = {
  total_count: 'totalCount',
  filter_count: 'filterCount',
  total_count_estimate: 'totalCountEstimate',
  next_cursor: 'nextCursor',
}

export function parseMeta(raw: unknown): MetaRequest {
  const meta: Record<keyof MetaRequest, boolean> = { totalCount: false, filterCount: false, totalCountEstimate: false, nextCursor: false }
  for (const entry of parseList(raw, 'meta')) {
    const key = Object.hasOwn(META_ENTRIES, entry) ? META_ENTRIES[entry] : undefined
    // `*` keeps its Directus meaning: both counts.
    if (entry === '*') Object.assign(meta, { totalCount: true, filterCount: true })
    else if (key !== undefined) meta[key] = true
    else throw new InvalidQueryError(`"meta" accepts total_count, filter_count, total_count_estimate, next_cursor or *, not "${entry}"`)
  }
  return meta
}

const EXPORT_FORMATS: readonly ExportFormat[] = ['json', 'csv', 'ndjson']

export function parseExport(raw: unknown): ExportFormat | null {
  const format = parseSingle(raw, 'export')
  if (format === undefined) return null
  if (!(EXPORT_FORMATS as readonly string[]).includes(format)) throw new InvalidQueryError('"export" must be json, csv or ndjson')
  return format as ExportFormat
}

/** The sort keys a `cursor` carries; a cursor replaces `offset` and `page`, and lists rows, not groups. */
export function parseAfter(
  raw: RawParameters,
  collection: Collection,
  sort: readonly SortNode[],
  options: ParserOptions,
): unknown[] | null {
  const cursor = parseSingle(raw.cursor, 'cursor')
  if (cursor === undefined) return null
  for (const parameter of ['offset', 'page', 'aggregate', 'groupBy', 'version'] as const) {
    if (raw[parameter] !== undefined) throw new InvalidQueryError(`"cursor" cannot be combined with "${parameter}"`)
  }
  return decodeCursor(cursor, options.cursorSecret, collection, sort)
}

export function parseBacklink(raw: unknown): boolean {
  const text = parseSingle(raw, 'backlink')
  if (text === undefined || text === 'true') return true
  if (text === 'false') return false
  throw new InvalidQueryError('"backlink" must be true or false')
}

export function parseVersion(raw: unknown): string | null {
  const key = parseSingle(raw, 'version')
  if (key === undefined) return null
  if (key === '' || key.length > MAX_VERSION_KEY_LENGTH) {
    throw new InvalidQueryError(`"version" must be a key of 1 to ${MAX_VERSION_KEY_LENGTH} characters`)
  }
  if (unstorableText(key)) throw new InvalidQueryError('"version" cannot contain the NUL character or an unpaired surrogate')
  return key
}

/** Everything the parser needs besides the request: the schema and the router's limits. */
export interface ParserOptions extends FieldsOptions {
  /** Most entries in `fields`, `sort`, `groupBy`, `aggregate` and `alias` each (`maxListEntries`). */
  readonly maxListEntries: number
  /** Signs and checks page cursors (`cursorSecret`). */
  readonly cursorSecret: Buffer
  /** Most rows one `export` streams (`maxExportRows`); it replaces `maxLimit` there. */
  readonly maxExportRows: number
}

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
  const options = extended(given, { budget: newFilterBudget() })
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
  const options = extended(given, { budget: newFilterBudget() })
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
