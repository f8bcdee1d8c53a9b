// GET /items/:collection?export=csv|json|ndjson: the matching items streamed as a download, chunk by chunk,
// writing each chunk only once the client has taken the previous one.
import type { Response } from 'express'
import { InvalidQueryError } from '../errors'
import type { ExportFormat, Query } from '../query/query'
import type { Item, Logger } from '../types'
import { exportWriter } from './export-formats'
import type { ItemsScope } from './items-scope'

/** Writes `text`, then waits while the socket's buffer is full (backpressure) or until the client leaves. */
async function send(res: Response, text: string): Promise<void> {
  if (text === '' || res.write(text) || res.destroyed) return
  await new Promise<void>((resolve) => {
    const done = (): void => {
      res.off('drain', done)
      res.off('close', done)
      resolve()
    }
    res.on('drain', done)
    res.on('close', done)
  })
}

/** The items in chunks: an aggregate's groups at once (a page, within maxLimit), a list streamed. */
async function* chunksOf(scope: ItemsScope, query: Query): AsyncGenerator<Item[], void, undefined> {
  if (query.aggregate) yield (await scope.repository.list(scope.collection, query)).items
  else yield* scope.repository.streamItems(scope.collection, query)
}

/** The CSV columns: the requested top-level fields, or for an aggregate the first group's keys. */
const columnsOf = (query: Query, first: readonly Item[]): string[] =>
  query.aggregate ? Object.keys(first[0] ?? {}) : query.fields.map((node) => node.output)

/**
 * Streams the export. The first chunk is read before anything is sent, so a request that fails at once still
 * answers with its error status. A failure after the first byte cannot change the status: it is logged and
 * the connection is destroyed, so the client sees a truncated download (an unterminated chunked body), never
 * a complete-looking one. A client that leaves stops the reading after the chunk in flight, whose statement
 * the request's abort cancels (statement-guard.ts).
 */
export async function exportItems(res: Response, scope: ItemsScope, query: Query, format: ExportFormat, logger: Logger): Promise<void> {
  if (query.version !== null) throw new InvalidQueryError('"export" cannot be combined with "version"')
  const chunks = chunksOf(scope, query)
  const first = await chunks.next()
  const firstItems = first.done ? [] : first.value
  const writer = exportWriter(format, columnsOf(query, firstItems))
  res.status(200)
  res.setHeader('Content-Type', writer.contentType)
  const name = scope.collection.name.replace(/[^\w.-]/g, '_')
  res.setHeader('Content-Disposition', `attachment; filename="${name}.${writer.extension}"`)
  try {
    await send(res, writer.start() + writer.items(firstItems, true))
    let empty = firstItems.length === 0
    while (!res.destroyed) {
      const next = await chunks.next()
      if (next.done) break
      await send(res, writer.items(next.value, empty))
      empty &&= next.value.length === 0
    }
    if (res.destroyed) return
    res.end(writer.end())
  } catch (error) {
    logger.error(
      `express-items-router: the export of "${scope.collection.name}" failed after its first byte; the download is cut short`,
      error,
    )
    res.destroy()
  } finally {
    await chunks.return()
  }
}
