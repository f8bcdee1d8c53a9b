// Wraps a handler: resolves the collection, offers the shared parser and body reader, and passes every
// rejection to `next` (Express 4 does not do that for async handlers).
import type { Request, RequestHandler, Response } from 'express'
import { InvalidPayloadError, RouteNotFoundError } from '../errors'
import { parseQuery, parseSelection, type ParserOptions } from '../query/parse-query'
import type { Query, Selection } from '../query/query'
import { readQueryString, type QueryStringLimits, type RawQuery } from '../query/read-query-string'
import type { ItemsRepository } from '../repository/items-repository'
import type { Collection, Schema } from '../schema/collection'
import type { PayloadValidator } from '../schema/payload-validator'
import type { VersionsService } from '../versions/versions-service'

/** What every handler works with; built once per router. */
export interface Services {
  readonly schema: Schema
  readonly repository: ItemsRepository
  readonly validators: ReadonlyMap<Collection, PayloadValidator>
  readonly versions: VersionsService
  readonly queryString: QueryStringLimits
  readonly parser: ParserOptions
}

/** One request's view of the services. */
export interface RequestContext {
  readonly collection: Collection
  readonly repository: ItemsRepository
  readonly validator: PayloadValidator
  readonly versions: VersionsService
  /** The raw query-string object, parsed with the router's own qs limits. */
  readonly rawQuery: RawQuery
  /** The request's query parameters as a typed Query (parsed on first use). */
  query(): Query
  /** The JSON body; a request without one is a 400. */
  body(): unknown
  /** Parses the `query` object of a by-query write. */
  selection(raw: unknown): Selection
}

export type ItemsHandler = (req: Request, res: Response, context: RequestContext) => Promise<void>

/** 404 `ROUTE_NOT_FOUND` naming the method and the path as the client sent it. */
export const routeNotFound = (req: Request): RouteNotFoundError => new RouteNotFoundError(`${req.method} ${req.baseUrl}${req.path}`)

export function readBody(req: Request): unknown {
  // body-parser leaves non-JSON bodies alone, and Express 4 then still sets `req.body` to `{}`.
  if (!req.is(['application/json', '+json'])) {
    throw new InvalidPayloadError('The request needs a JSON body (Content-Type: application/json)')
  }
  return req.body as unknown
}

export function createRoute(services: Services): (handler: (collection: Collection) => ItemsHandler) => RequestHandler {
  return (pick) => (req, res, next) => {
    const name = String(req.params.collection)
    const collection = services.schema.collections.get(name)
    if (!collection) {
      next(routeNotFound(req))
      return
    }
    let parsed: Query | undefined
    let rawQuery: RawQuery | undefined
    const context: RequestContext = {
      collection,
      repository: services.repository,
      validator: services.validators.get(collection)!,
      versions: services.versions,
      get rawQuery() {
        rawQuery ??= readQueryString(req.originalUrl ?? req.url, services.queryString)
        return rawQuery
      },
      query: () => (parsed ??= parseQuery(context.rawQuery, collection, services.parser)),
      body: () => readBody(req),
      selection: (raw) => parseSelection(raw, collection, services.parser),
    }
    pick(collection)(req, res, context).catch(next)
  }
}
