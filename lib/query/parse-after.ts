// Parses ?cursor into the sort keys a keyset page starts after.
import { InvalidQueryError } from '../errors'
import type { Collection } from '../schema/collection'
import { decodeCursor } from './cursor'
import { parseSingle } from './parse-list'
import type { ParserOptions } from './parser-options'
import type { SortNode } from './query'

/** The parameters a cursor reads or refuses beside it. */
export type CursorParameters = Readonly<Partial<Record<'cursor' | 'offset' | 'page' | 'aggregate' | 'groupBy' | 'version', unknown>>>

/** The sort keys a `cursor` carries; a cursor replaces `offset` and `page`, and lists rows, not groups. */
export function parseAfter(
  raw: CursorParameters,
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
