// What an /items request works with: its collection and caller (context, access), the shared parser through the
// caller's view, the body reader and the caller's writer.
import type { Request, RequestHandler, Response } from 'express'
import { CallerAccess, hasFullAccess } from '../access/caller-access'
import { ForbiddenError } from '../errors'
import { parseSelection } from '../query/parse-query'
import type { ParserOptions } from '../query/parser-options'
import type { Query, Selection } from '../query/query'
import { readQueryBody } from '../query/read-query-body'
import { queryKey } from '../query/query-cache'
import { readQueryString } from '../query/read-query-string'
import type { ItemsRepository } from '../repository/items-repository'
import type { Collection } from '../schema/collection'
import type { Item, Logger, PrimaryKey } from '../types'
import { encodeCursor } from '../query/cursor'
import { keyItem } from '../schema/item-key'
import type { VersionsService } from '../versions/versions-service'
import type { ItemsWriter, WriteOptions } from '../writes/items-writer'
import { parseHooked } from './hooked-query'
import { idempotent, type Answer } from './idempotent'
import { readBody, resolveCaller, routeNotFound } from './request'
import { route, type Handler } from './route'
import { writerFor, type Services } from './services'
import type { ExportSetup } from './export-setup'

export interface ItemsRequest {
  readonly collection: Collection
  readonly repository: ItemsRepository
  readonly versions: VersionsService
  /** The caller's access: their view of the schema and the rules of their writes. */
  readonly access: CallerAccess
  /**
   * The caller's writes to the collection, with access rules, hooks and events; made on first use, as a read never
   * writes.
   */
  writer(): ItemsWriter
  /**
   * The request's query parameters as a typed Query, through the caller's view (parsed on first use): from the
   * URL, or for SEARCH from the JSON body.
   */
  query(): Promise<Query>
  /** 403 `FORBIDDEN` unless the caller may read the collection. */
  assertReadable(): void
  /** Whether the caller may manage the collection's content versions (see versions-request.ts). */
  mayManageVersions(): Promise<boolean>
  /**
   * The written items as the caller may read them, shaped by the request's `fields`: from the row a one-statement
   * write returned where it could (ItemsWriter.returnedRows), else read back. Runs after commit, so it never
   * fails: when the read does, the answer is each item's primary key alone.
   */
  readBack(keys: readonly PrimaryKey[]): Promise<Item[]>
  /** The cursor of the place after the item with these sort keys, for `query`'s collection and sort. */
  cursorAfter(query: Query, keys: readonly unknown[]): string
  /** The router's logger, for failures that can no longer become a response (a cut-short export). */
  readonly logger: Logger
  /** What the router's exports share: their budget, their turns at the database, their idle cut. */
  readonly exports: ExportSetup
  /** The JSON body; a request without one is a 400. */
  body(): unknown
  /** Parses the `query` object of a by-query write, through the caller's view. */
  selection(raw: unknown): Selection
  /**
   * Runs a write and sends its answer, honouring `Idempotency-Key` (see idempotent.ts): `write` gets the
   * options that claim the key in its transaction, `answer` turns the written keys into the response.
   */
  respond(
    res: Response,
    write: (options: WriteOptions) => Promise<PrimaryKey[]>,
    answer: (keys: readonly PrimaryKey[]) => Promise<Answer>,
  ): Promise<void>
}

export type ItemsHandler = Handler<ItemsRequest>

async function itemsRequest(services: Services, req: Request): Promise<ItemsRequest> {
  const collection = services.schema.collections.get(String(req.params.collection))
  if (!collection) throw routeNotFound(req)
  // Awaited only when pending: see is-promise-like.ts.
  const resolved = CallerAccess.forCaller(services.access, collection, resolveCaller(services.context, req))
  const access = resolved instanceof CallerAccess ? resolved : await resolved
  // Made when something is parsed: a request whose query was parsed before needs none of it.
  const parser = (): ParserOptions => ({ ...services.parser, schema: access.view, variables: access.variables })
  let parsed: Promise<Query> | undefined
  const parse = async (): Promise<Query> => {
    const inUrl = readQueryString(req.url, services.queryString)
    const raw = req.method === 'SEARCH' ? readQueryBody(readBody(req), inUrl, services.queryString) : inUrl
    return parseHooked(raw, collection, access, services)
  }
  // A beforeRead hook may answer each caller differently, and a SEARCH reads its query from the body.
  const kept = (): string | null =>
    req.method === 'SEARCH' || services.lifecycle.has(collection, 'beforeRead')
      ? null
      : queryKey(collection, () => access.signature, req.url)
  const query = (): Promise<Query> => (parsed ??= services.queries.parse(kept(), parse))
  let writer: ItemsWriter | undefined
  return {
    collection,
    repository: services.repository,
    versions: services.versions,
    access,
    writer: () => (writer ??= writerFor(services, collection, access, query)),
    query,
    assertReadable: () => {
      if (!access.canRead(collection)) throw new ForbiddenError()
    },
    mayManageVersions: () => hasFullAccess(services.access, collection, access.context),
    readBack: async (keys) => {
      const { fields, scope } = await query()
      try {
        const returned = writer?.returnedRows(keys) ?? null
        if (returned !== null) {
          return await services.repository.itemsOfReturned(collection, fields, returned)
        }
        return await services.repository.readByKeys(collection, keys, fields, scope)
      } catch (error) {
        // The write is committed: answering an error now would make a retrying client write it again.
        services.logger.error('express-items-router: reading back committed items failed; answering their keys', error)
        return keys.map((key) => keyItem(collection, key))
      }
    },
    cursorAfter: (query, keys) => encodeCursor(services.parser.cursorSecret, collection, query.sort, keys),
    logger: services.logger,
    exports: services.exports,
    body: () => readBody(req),
    selection: (raw) => parseSelection(raw, collection, parser()),
    respond: (res, write, answer) =>
      idempotent({ req, res, store: services.idempotency, context: access.context, logger: services.logger, write, answer }),
  }
}

/** An /items route: `pick` chooses the handler by collection (singletons are served differently). */
export function itemsRoute(services: Services, pick: (collection: Collection) => ItemsHandler): RequestHandler {
  return route(
    (req) => itemsRequest(services, req),
    (req, res, request) => pick(request.collection)(req, res, request),
  )
}
