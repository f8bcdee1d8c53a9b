// GET /items/:collection?export=csv|json|ndjson: the matching items streamed as a download, chunk by chunk,
// writing each chunk only once the client has taken the previous one.
import type { Response } from 'express'
import { InvalidQueryError } from '../errors'
import type { ExportFormat, Query } from '../query/query'
import type { Item, Logger } from '../types'
import { csvLines, exportWriter, type ExportWriter } from './export-formats'
import type { ItemsRequest } from './items-request'

/**
 * Writes `piece`, then waits while the socket's buffer is full (backpressure) until the client takes it or
 * leaves; a client that takes nothing for `idleTimeout` ms is cut off, as one that left.
 */
async function send(res: Response, piece: string | Buffer, idleTimeout: number): Promise<void> {
  if (piece.length === 0 || res.write(piece) || res.destroyed) return
  await new Promise<void>((resolve) => {
    const idle = idleTimeout > 0 ? setTimeout(() => res.destroy(), idleTimeout) : null
    const done = (): void => {
      if (idle) clearTimeout(idle)
      res.off('drain', done)
      res.off('close', done)
      resolve()
    }
    res.on('drain', done)
    res.on('close', done)
  })
}

/** The items in chunks: an aggregate's groups at once (a page, within maxLimit), a list streamed. */
async function* chunksOf(request: ItemsRequest, query: Query): AsyncGenerator<Item[], void, undefined> {
  if (query.aggregate) yield (await request.repository.list(request.collection, query)).items
  else yield* request.repository.streamItems(request.collection, query)
}

/** The CSV columns: the requested top-level fields, or for an aggregate the first group's keys. */
const columnsOf = (query: Query, first: readonly Item[]): string[] =>
  query.aggregate ? Object.keys(first[0] ?? {}) : query.fields.map((node) => node.output)

/** A download: how it is sent, and its body in pieces, of which the first is already read. */
interface Download {
  readonly writer: ExportWriter
  readonly first: readonly (string | Buffer)[]
  readonly rest: AsyncGenerator<string | Buffer, void, undefined>
}

/** The body the writer makes of the items, chunk by chunk. */
async function* writtenPieces(
  writer: ExportWriter,
  chunks: AsyncGenerator<Item[], void, undefined>,
  first: readonly Item[],
): AsyncGenerator<string, void, undefined> {
  let empty = first.length === 0
  for await (const items of chunks) {
    yield writer.items(items, empty)
    empty &&= items.length === 0
  }
  yield writer.end()
}

/**
 * The lines of a CSV export of plain fields: as the database writes them (ItemsRepository.copyCsv), else from
 * the rows as arrays (streamArrays), so that no row becomes an item. null where neither applies.
 */
async function plainCsvLines(request: ItemsRequest, query: Query): Promise<AsyncGenerator<string | Buffer, void, undefined> | null> {
  const pieces = (await request.repository.copyCsv(request.collection, query)) ?? request.repository.streamArrays(request.collection, query)
  if (pieces === null) return null
  return (async function* () {
    for await (const piece of pieces) yield Buffer.isBuffer(piece) ? piece : csvLines(piece)
  })()
}

/**
 * The download, its first piece read before anything is sent: for CSV of plain fields, the header and the
 * lines (plainCsvLines); else the writer's text of the items.
 */
async function download(request: ItemsRequest, query: Query, format: ExportFormat): Promise<Download> {
  const lines = format === 'csv' ? await plainCsvLines(request, query) : null
  if (lines !== null) {
    const writer = exportWriter(format, columnsOf(query, []))
    const first = await lines.next()
    // CSV has no text after its last line, so the lines are the whole rest.
    return { writer, first: first.done ? [writer.start()] : [writer.start(), first.value], rest: lines }
  }
  const chunks = chunksOf(request, query)
  const first = await chunks.next()
  const firstItems = first.done ? [] : first.value
  const writer = exportWriter(format, columnsOf(query, firstItems))
  return { writer, first: [writer.start() + writer.items(firstItems, true)], rest: writtenPieces(writer, chunks, firstItems) }
}

/**
 * Streams the export. The first chunk is read before anything is sent, so a request that fails at once still
 * answers with its error status. A failure after the first byte cannot change the status: it is logged and
 * the connection is destroyed, so the client sees a truncated download (an unterminated chunked body), never
 * a complete-looking one. A client that leaves stops the reading after the chunk in flight, whose statement
 * the request's abort cancels (statement-guard.ts); that is no failure, and is not logged. The export holds one of the router's places
 * (ExportBudget) from before its first statement until it ends or its client leaves, and reads each chunk in
 * its turn (ExportTurns).
 */
export async function exportItems(res: Response, request: ItemsRequest, query: Query, format: ExportFormat, logger: Logger): Promise<void> {
  if (query.version !== null) throw new InvalidQueryError('"export" cannot be combined with "version"')
  const { budget, turns, idleTimeout } = request.exports
  const release = budget.claim(res)
  try {
    const { writer, first, rest } = await turns.take(() => download(request, query, format))
    res.status(200)
    res.setHeader('Content-Type', writer.contentType)
    const name = request.collection.name.replace(/[^\w.-]/g, '_')
    res.setHeader('Content-Disposition', `attachment; filename="${name}.${writer.extension}"`)
    try {
      for (const piece of first) await send(res, piece, idleTimeout)
      while (!res.destroyed) {
        // A client that left while this export waited for its turn costs no statement more.
        const next = await turns.take(async () => (res.destroyed ? DONE : rest.next()))
        if (next.done) break
        await send(res, next.value, idleTimeout)
      }
      if (!res.destroyed) res.end()
    } catch (error) {
      // A client that left (or was cut off as idle) aborted the request, whose abort cancels the chunk in
      // flight: its statement's error is the leaving, not a failure of the export.
      if (!res.destroyed)
        logger.error(
          `express-items-router: the export of "${request.collection.name}" failed after its first byte; the download is cut short`,
          error,
        )
      res.destroy()
    } finally {
      await rest.return()
    }
  } finally {
    release()
  }
}

const DONE: IteratorReturnResult<void> = { done: true, value: undefined }
