// Parsed queries, kept by collection, caller's view and query string: the same request from a caller who sees the
// same fields and rows parses to the same Query, so the router parses it once. The parse reads nothing else of
// the request but its variables (`$CURRENT_USER`, `$NOW`), so a query string that could name one is always
// parsed afresh, and so is one a `beforeRead` hook may rewrite (the caller decides) or a SEARCH body.
import { isDeepStrictEqual } from 'node:util'
import { checkingCaches } from '../cache-checks'
import { LruMap } from '../lru-map'
import type { Collection } from '../schema/collection'
import type { Query } from './query'

/** Most parsed queries one router keeps. */
export const QUERIES_KEPT = 500
/** The longest query string kept: longer ones are rare, and each would hold its text as part of a key. */
export const LONGEST_KEPT = 2048

/** A `$` (or its escape `%24`) may spell a variable, whose value is the caller's or the moment's. */
const MAY_NAME_VARIABLE = /\$|%24/

/** The key of the request's query among the kept ones, or null when it is not kept. `signature`: the caller's view. */
export function queryKey(collection: Collection, signature: () => string, url: string): string | null {
  const start = url.indexOf('?')
  const text = start === -1 ? '' : url.slice(start + 1)
  if (text.length > LONGEST_KEPT || MAY_NAME_VARIABLE.test(text)) return null
  return `${collection.name}\n${signature()}\n${text}`
}

export class ParsedQueries {
  private readonly queries: LruMap<Query>

  constructor(capacity = QUERIES_KEPT) {
    this.queries = new LruMap(true, capacity)
  }

  /** The query kept under `key`, else what `parse` gives, kept when it parses. Handlers must not change it. */
  async parse(key: string | null, parse: () => Promise<Query>): Promise<Query> {
    if (key === null) return parse()
    const kept = this.queries.get(key)
    if (kept !== undefined && !checkingCaches()) return kept
    const query = await parse()
    if (kept === undefined) this.queries.keep(key, query)
    else if (!isDeepStrictEqual(kept, query)) throw new Error(`A kept query differs from a fresh parse of ${JSON.stringify(key)}`)
    return kept ?? query
  }
}
