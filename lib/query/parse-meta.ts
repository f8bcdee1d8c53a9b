// Parses ?meta: which counts (and the next page's cursor) a list answers beside its items.
import { InvalidQueryError } from '../errors'
import { parseList } from './parse-list'
import type { MetaRequest } from './query'

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
