// The query parameters the shared parser reads: one table, read by the parser's input type, the SEARCH body
// reader and the OpenAPI document, so a parameter is added in one place and none of them can leave it out.
import { parseAggregateQuery } from './parse-aggregate'
import { parseFields } from './parse-fields'
import { parseFilter } from './parse-filter'
import { parsePagination } from './parse-pagination'
import { parseAfter } from './parse-after'
import { parseBacklink } from './parse-backlink'
import { parseExport } from './parse-export'
import { parseMeta } from './parse-meta'
import { parseVersion } from './parse-version'
import { parseSearch } from './parse-search'
import { parseSort } from './parse-sort'

type Json = Record<string, unknown>

/**
 * Kinds of operation that take query parameters: a list of items (`GET` and `SEARCH /items/:c`), a read of one
 * item or of a singleton, the read-back of a create or an update, a list of versions.
 */
export type ParameterUse = 'list' | 'item' | 'readBack' | 'versions'

export interface QueryParameter {
  /** The function that reads it (and refuses a bad value with a 400 naming it). */
  readonly parser: (...args: never[]) => unknown
  /** Its OpenAPI description. */
  readonly description: string
  /** The OpenAPI schema of its value; null: built per collection (`filter`'s is the collection's Filter). */
  readonly schema: Json | null
  /** Set for an object written in brackets (`deep[comments][_limit]=3`), OpenAPI's name for that form. */
  readonly style?: 'deepObject'
  /** The operations whose OpenAPI description lists it. */
  readonly usedBy: readonly ParameterUse[]
}

const LIST_SCHEMA = { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] }
const OBJECT_SCHEMA = { type: 'object' }
const TEXT_SCHEMA = { type: 'string' }

const EVERY_READ: readonly ParameterUse[] = ['list', 'item', 'readBack']
const LISTS: readonly ParameterUse[] = ['list', 'versions']

const TABLE = {
  fields: {
    parser: parseFields,
    description: 'Fields to return, comma-separated: `id,title`, `author.name`, `*`, `*.*`, `year(published_at)`.',
    schema: LIST_SCHEMA,
    usedBy: [...EVERY_READ, 'versions'],
  },
  deep: {
    parser: parseFields,
    description: 'Per-parent query of one-to-many lists: `deep[comments][_limit]=3`.',
    schema: OBJECT_SCHEMA,
    style: 'deepObject',
    usedBy: EVERY_READ,
  },
  alias: {
    parser: parseFields,
    description: 'Extra names for fields: `alias[latest]=comments`.',
    schema: OBJECT_SCHEMA,
    style: 'deepObject',
    usedBy: EVERY_READ,
  },
  backlink: {
    parser: parseBacklink,
    description: 'Whether wildcards inside a relation expand the relation leading back.',
    schema: { type: 'boolean' },
    usedBy: EVERY_READ,
  },
  limit: {
    parser: parsePagination,
    description: 'Page size; `-1`: every row (capped at `maxLimit`).',
    schema: { type: 'integer', minimum: -1 },
    usedBy: LISTS,
  },
  offset: { parser: parsePagination, description: 'Rows to skip.', schema: { type: 'integer', minimum: 0 }, usedBy: LISTS },
  page: {
    parser: parsePagination,
    description: '1-based page: offset = (page - 1) × limit.',
    schema: { type: 'integer', minimum: 0 },
    usedBy: LISTS,
  },
  cursor: {
    parser: parseAfter,
    description: 'Start after the item this cursor (a `meta.next_cursor`, same `sort`) names, instead of at `offset`.',
    schema: TEXT_SCHEMA,
    usedBy: ['list'],
  },
  sort: {
    parser: parseSort,
    description: 'Sort fields, `-` for descending: `-rating,title`. The primary key always ends the order.',
    schema: LIST_SCHEMA,
    usedBy: LISTS,
  },
  meta: {
    parser: parseMeta,
    description: '`total_count`, `filter_count`, `*` (both), `total_count_estimate` or `next_cursor`, comma-separated.',
    schema: TEXT_SCHEMA,
    usedBy: LISTS,
  },
  search: {
    parser: parseSearch,
    description: 'Case-insensitive substring search over text fields (and exact numbers and UUIDs).',
    schema: TEXT_SCHEMA,
    usedBy: ['list'],
  },
  aggregate: {
    parser: parseAggregateQuery,
    description: 'Summaries instead of items: `aggregate[count]=*`, `aggregate[avg]=rating`. The answer holds grouped rows.',
    schema: OBJECT_SCHEMA,
    style: 'deepObject',
    usedBy: ['list'],
  },
  groupBy: {
    parser: parseAggregateQuery,
    description: 'Group rows for `aggregate`: `status,year(published_at)`.',
    schema: LIST_SCHEMA,
    usedBy: ['list'],
  },
  export: {
    parser: parseExport,
    description:
      'Stream the matching items as a download instead of a JSON page: `csv` (text/csv), `json` (one array) or `ndjson` ' +
      '(application/x-ndjson). `limit=-1` exports up to `maxExportRows`.',
    schema: { type: 'string', enum: ['csv', 'json', 'ndjson'] },
    usedBy: ['list'],
  },
  version: {
    parser: parseVersion,
    description: 'A content version key: the item as that version shows it (`main`: the item itself).',
    schema: TEXT_SCHEMA,
    usedBy: ['item'],
  },
  filter: {
    parser: parseFilter,
    description: 'A filter; also accepted as a JSON string (`filter={"rating":{"_gte":4}}`).',
    schema: null,
    style: 'deepObject',
    usedBy: LISTS,
  },
} satisfies Record<string, QueryParameter>

export type QueryParameterName = keyof typeof TABLE

/**
 * Every query parameter, in the order the OpenAPI document lists them. A SEARCH reads each of them from its
 * body's `query` and refuses each in its URL, where it would compete with the body. `RawParameters`, the
 * parser's input, has exactly these names, so a parameter the parser reads has an entry here or fails to compile.
 */
export const QUERY_PARAMETERS: Readonly<Record<QueryParameterName, QueryParameter>> = Object.freeze(TABLE)

/** The parameters of a request as the query string or a SEARCH body gives them, before parsing. */
export type RawParameters = { readonly [Name in QueryParameterName]?: unknown }

export const QUERY_PARAMETER_NAMES = Object.freeze(Object.keys(QUERY_PARAMETERS) as QueryParameterName[])
