// Reads the query of a `SEARCH /items/:collection` from its JSON body (`{ "query": { ... } }`), the way
// @directus/sdk's withSearch() sends it, into the same raw form the query string gives the shared parser.
import { InvalidPayloadError, InvalidQueryError } from '../errors'
import { isPlainObject } from '../is-plain-object'
import { QUERY_PARAMETER_NAMES } from './query-parameters'
import type { QueryStringLimits, RawQuery } from './read-query-string'

/**
 * The body's `query` as a RawQuery. Top-level numbers and booleans (`"limit": 10`, `"backlink": false`) become
 * the text a query string would carry; objects and arrays stay as they are, as the bracket form leaves them,
 * so each parameter means what it means in the URL. A URL that also carries one of QUERY_PARAMETERS is refused:
 * two sources could disagree, and silently preferring one would hide that.
 */
export function readQueryBody(body: unknown, url: RawQuery, limits: QueryStringLimits): RawQuery {
  if (!isPlainObject(body) || !isPlainObject(body.query)) {
    throw new InvalidPayloadError('A SEARCH request needs a JSON body of the form { "query": { ... } }')
  }
  const inUrl = QUERY_PARAMETER_NAMES.filter((name) => Object.hasOwn(url, name))
  if (inUrl.length > 0) {
    throw new InvalidQueryError(`A SEARCH request takes its query from the body; remove "${inUrl.join('", "')}" from the URL`)
  }
  const entries = Object.entries(body.query)
  if (entries.length > limits.maxParameters) {
    throw new InvalidQueryError(`The query has more than ${limits.maxParameters} parameters`)
  }
  const raw: RawQuery = Object.create(null) as RawQuery
  for (const [name, value] of entries) {
    if (value === null || value === undefined) continue
    raw[name] = typeof value === 'number' || typeof value === 'boolean' ? String(value) : value
  }
  return raw
}
