// THE shared parameter parser: raw query-string object to a typed, validated Query, before any SQL exists.
import { InvalidPayloadError, InvalidQueryError } from '../errors'
import type { Collection } from '../schema/collection'
import { hasNul } from '../schema/field-types'
import { parseFields } from './parse-fields'
import { parseFilter, type FilterLimits } from './parse-filter'
import { parseList, parseSingle } from './parse-list'
import { parsePagination } from './parse-pagination'
import { parseSort } from './parse-sort'
import type { MetaRequest, Query, Selection } from './query'
import type { RawQuery } from './read-query-string'

const MAX_VERSION_KEY_LENGTH = 64
const MAX_SEARCH_LENGTH = 1000

function parseMeta(raw: unknown): MetaRequest {
  const meta = { totalCount: false, filterCount: false }
  for (const entry of parseList(raw, 'meta')) {
    if (entry === '*') Object.assign(meta, { totalCount: true, filterCount: true })
    else if (entry === 'total_count') meta.totalCount = true
    else if (entry === 'filter_count') meta.filterCount = true
    else throw new InvalidQueryError(`"meta" accepts total_count, filter_count or *, not "${entry}"`)
  }
  return meta
}

function parseSearch(raw: unknown): string | null {
  const search = parseSingle(raw, 'search')
  if (search !== undefined && search.length > MAX_SEARCH_LENGTH) {
    throw new InvalidQueryError(`"search" may be at most ${MAX_SEARCH_LENGTH} characters long`)
  }
  if (search !== undefined && hasNul(search)) throw new InvalidQueryError('"search" cannot contain the NUL character')
  return search === undefined || search === '' ? null : search
}

function parseBacklink(raw: unknown): boolean {
  const text = parseSingle(raw, 'backlink')
  if (text === undefined || text === 'true') return true
  if (text === 'false') return false
  throw new InvalidQueryError('"backlink" must be true or false')
}

function parseVersion(raw: unknown): string | null {
  const key = parseSingle(raw, 'version')
  if (key === undefined) return null
  if (key === '' || key.length > MAX_VERSION_KEY_LENGTH) {
    throw new InvalidQueryError(`"version" must be a key of 1 to ${MAX_VERSION_KEY_LENGTH} characters`)
  }
  return key
}

export function parseQuery(raw: RawQuery, collection: Collection, limits: FilterLimits, now = new Date()): Query {
  return {
    fields: parseFields(raw.fields, collection),
    filter: parseFilter(raw.filter, collection, limits, now),
    search: parseSearch(raw.search),
    sort: parseSort(raw.sort, collection),
    ...parsePagination(raw, collection.limits),
    meta: parseMeta(raw.meta),
    backlink: parseBacklink(raw.backlink),
    version: parseVersion(raw.version),
  }
}

/** The `query` of a by-query PATCH or DELETE: which rows to change. Every matching row unless it sets a limit. */
export function parseSelection(raw: unknown, collection: Collection, limits: FilterLimits, now = new Date()): Selection {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new InvalidPayloadError('"query" must be an object with filter, search, sort, limit or offset')
  }
  const query = raw as RawQuery
  return {
    filter: parseFilter(query.filter, collection, limits, now),
    search: parseSearch(query.search),
    sort: parseSort(query.sort, collection),
    ...parsePagination(query, collection.limits, 'write'),
  }
}
