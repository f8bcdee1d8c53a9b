// Reads a long result as a series of keyset chunks: each chunk one bounded statement (plus its relations)
// starting after the previous chunk's last row, so memory holds one chunk whatever the result's size, and the
// event loop gets a turn between chunks (better-sqlite3 runs each statement synchronously on it).
import { setImmediate as nextTurn } from 'node:timers/promises'
import type { Item } from '../types'
import { RowBudgetError } from './row-budget'

/** Loads the items after `after` (null: the first chunk), at most `limit`, with the sort keys of its last item. */
export type ChunkLoader<T = Item> = (after: readonly unknown[] | null, limit: number) => Promise<{ items: T[]; last: unknown[] | null }>

/** A chunk as loaded, with the limit it was loaded under. */
interface Loaded<T> {
  readonly items: T[]
  readonly last: unknown[] | null
  readonly limit: number
}

/** A chunk's items with their relations passed `maxLoadedRows`: the same chunk again, half as long. */
async function loadWithin<T>(load: ChunkLoader<T>, after: readonly unknown[] | null, limit: number): Promise<Loaded<T>> {
  for (;;) {
    try {
      return { ...(await load(after, limit)), limit }
    } catch (error) {
      // One item whose relations pass the bound cannot be split: the error stands, as it does in a list.
      if (!(error instanceof RowBudgetError) || limit === 1) throw error
      limit = Math.ceil(limit / 2)
    }
  }
}

/**
 * Yields chunks of at most `chunkRows` items until `total` items (null: all) or the rows run out. A chunk whose
 * relations pass `maxLoadedRows` is read again in halves, and later chunks keep the smaller size. Stopping the
 * iteration (a `break`, `return()`) stops the reading: no statement runs after it.
 */
export async function* streamRows<T>(load: ChunkLoader<T>, total: number | null, chunkRows: number): AsyncGenerator<T[], void, undefined> {
  let remaining = total ?? Number.POSITIVE_INFINITY
  let after: readonly unknown[] | null = null
  while (remaining > 0) {
    const { items, last, limit }: Loaded<T> = await loadWithin(load, after, Math.min(chunkRows, remaining))
    chunkRows = Math.min(chunkRows, limit)
    if (items.length > 0) yield items
    remaining -= items.length
    if (items.length < limit || last === null) return
    after = last
    await nextTurn()
  }
}

/**
 * Loads the chunk of at most `limit` rows after `after` (null: the first chunk) as one piece of output, with
 * the sort keys of its `limit`th row: null when it has fewer, so that it is the last.
 */
export type PieceLoader<T> = (after: readonly unknown[] | null, limit: number) => Promise<{ piece: T; boundary: unknown[] | null }>

/**
 * Yields the pieces of chunks of `chunkRows` rows until `total` rows (null: all) or the rows run out; as
 * `streamRows`, for output the database writes itself (Dialect.csvCopy), which no row budget applies to.
 */
export async function* streamPieces<T>(load: PieceLoader<T>, total: number | null, chunkRows: number): AsyncGenerator<T, void, undefined> {
  let remaining = total ?? Number.POSITIVE_INFINITY
  let after: readonly unknown[] | null = null
  while (remaining > 0) {
    const limit = Math.min(chunkRows, remaining)
    const { piece, boundary } = await load(after, limit)
    yield piece
    if (boundary === null) return
    remaining -= limit
    after = boundary
    await nextTurn()
  }
}
