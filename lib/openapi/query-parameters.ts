// The query parameters the shared parser reads, as reusable OpenAPI parameter components.
type Json = Record<string, unknown>

const list = (description: string): Json => ({
  description,
  schema: { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] },
})

// Object parameters use deepObject, the bracket form `deep[comments][_limit]=3` that the parser reads.
const object = (description: string): Json => ({ description, style: 'deepObject', explode: true, schema: { type: 'object' } })

/** Every parameter but `filter`, which is typed per collection (see `filterParameter`). */
export const QUERY_PARAMETERS: Readonly<Record<string, Json>> = Object.freeze({
  fields: list('Fields to return, comma-separated: `id,title`, `author.name`, `*`, `*.*`, `year(published_at)`.'),
  limit: { description: 'Page size; `-1`: every row (capped at `maxLimit`).', schema: { type: 'integer', minimum: -1 } },
  offset: { description: 'Rows to skip.', schema: { type: 'integer', minimum: 0 } },
  page: { description: '1-based page: offset = (page - 1) × limit.', schema: { type: 'integer', minimum: 0 } },
  sort: list('Sort fields, `-` for descending: `-rating,title`. The primary key always ends the order.'),
  meta: {
    description: '`total_count`, `filter_count`, `*` (both), `total_count_estimate` or `next_cursor`, comma-separated.',
    schema: { type: 'string' },
  },
  cursor: {
    description: 'Start after the item this cursor (a `meta.next_cursor`, same `sort`) names, instead of at `offset`.',
    schema: { type: 'string' },
  },
  export: {
    description:
      'Stream the matching items as a download instead of a JSON page: `csv` (text/csv), `json` (one array) or `ndjson` ' +
      '(application/x-ndjson). `limit=-1` exports up to `maxExportRows`.',
    schema: { type: 'string', enum: ['csv', 'json', 'ndjson'] },
  },
  search: { description: 'Case-insensitive substring search over text fields (and exact numbers and UUIDs).', schema: { type: 'string' } },
  deep: object('Per-parent query of one-to-many lists: `deep[comments][_limit]=3`.'),
  alias: object('Extra names for fields: `alias[latest]=comments`.'),
  backlink: { description: 'Whether wildcards inside a relation expand the relation leading back.', schema: { type: 'boolean' } },
  aggregate: object('Summaries instead of items: `aggregate[count]=*`, `aggregate[avg]=rating`. The answer holds grouped rows.'),
  groupBy: list('Group rows for `aggregate`: `status,year(published_at)`.'),
  version: {
    description: 'A content version key: the item as that version shows it (`main`: the item itself).',
    schema: { type: 'string' },
  },
})

export type QueryParameterName = keyof typeof QUERY_PARAMETERS

export const parameterRef = (name: QueryParameterName): Json => ({ $ref: `#/components/parameters/${name}` })

/** The parameter components: `{ fields: { name: 'fields', in: 'query', ... }, ... }`. */
export function parameterComponents(): Json {
  return Object.fromEntries(Object.entries(QUERY_PARAMETERS).map(([name, spec]) => [name, { name, in: 'query', ...spec }]))
}

/** `filter` typed by one collection's Filter schema, in the bracket (deepObject) form. */
export const filterParameter = (filter: Json): Json => ({
  name: 'filter',
  in: 'query',
  description: 'A filter; also accepted as a JSON string (`filter={"rating":{"_gte":4}}`).',
  style: 'deepObject',
  explode: true,
  schema: filter,
})
