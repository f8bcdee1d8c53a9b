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

/** Slots of the table of keys asked for once: several times the kept queries, so a repeat is seen among many one-offs. */
const SEEN_SLOTS = 8192

/**
 * The keys asked for once, as hashes in a fixed table: it allocates nothing per request and forgets a key when
 * another takes its slot. Two keys of one hash make the second look seen, which only keeps its query early.
 */
class SeenOnce {
  private readonly slots = new Int32Array(SEEN_SLOTS)

  /** Whether `key` was asked for before (since its slot was last taken); if not, it is now. */
  again(key: string): boolean {
    // FNV-1a over the UTF-16 code units.
    let hash = 0x811c9dc5
    for (let index = 0; index < key.length; index++) hash = Math.imul(hash ^ key.charCodeAt(index), 0x01000193)
    const slot = hash & (SEEN_SLOTS - 1)
    if (this.slots[slot] === hash) return true
    this.slots[slot] = hash
    return false
  }
}

export class ParsedQueries {
  private readonly queries: LruMap<Query>
  private readonly seen = new SeenOnce()

  constructor(capacity = QUERIES_KEPT) {
    this.queries = new LruMap(true, capacity)
  }

  /**
   * The query kept under `key`, else what `parse` gives. Handlers must not change it. A query is kept when its key
   * comes a second time: traffic of one-off query strings (a value new to every request) would otherwise evict
   * the queries that do repeat, and keep each of its own parses alive for hundreds of requests, long enough to
   * reach the old generation of the heap, whose collections cost every request (bench row "list 25, a new URL
   * each request" against "list 25, filter + sort + author.name").
   */
  async parse(key: string | null, parse: () => Promise<Query>): Promise<Query> {
    if (key === null) return parse()
    const kept = this.queries.get(key)
    if (kept !== undefined && !checkingCaches()) return kept
    const query = await parse()
    if (kept === undefined) {
      if (this.seen.again(key)) this.queries.keep(key, query)
    } else if (!isDeepStrictEqual(kept, query)) throw new Error(`A kept query differs from a fresh parse of ${JSON.stringify(key)}`)
    return kept ?? query
  }
}
