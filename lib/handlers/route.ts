// Wraps a handler: resolves the collection and the caller (context, access), offers the shared parser, the
// body reader and the caller's writer, and passes every rejection to `next` (Express 4 does not for async
// handlers).
import type { Request, RequestHandler, Response } from 'express'
import type { Knex } from 'knex'
import type { AccessSetup } from '../access/caller-access'
import { CallerAccess } from '../access/caller-access'
import { ForbiddenError, InvalidPayloadError, RouteNotFoundError } from '../errors'
import { isPlainObject } from '../is-plain-object'
import { parseQuery, parseSelection, type ParserOptions } from '../query/parse-query'
import type { Query, Selection } from '../query/query'
import { readQueryString, type QueryStringLimits, type RawQuery } from '../query/read-query-string'
import type { ItemsRepository } from '../repository/items-repository'
import type { Collection, Schema } from '../schema/collection'
import type { PayloadValidator } from '../schema/payload-validator'
import type { Item, ItemsContext, PrimaryKey } from '../types'
import type { VersionsService } from '../versions/versions-service'
import { ItemsWriter } from '../writes/items-writer'
import type { Lifecycle } from '../writes/lifecycle'

/** The parser's limits; the schema view comes from each caller's access. */
export type ParserLimits = Omit<ParserOptions, 'schema' | 'variables'>

/** What every handler works with; built once per router. */
export interface Services {
  readonly knex: Knex
  readonly schema: Schema
  readonly repository: ItemsRepository
  readonly validators: ReadonlyMap<Collection, PayloadValidator>
  readonly versions: VersionsService
  readonly queryString: QueryStringLimits
  readonly parser: ParserLimits
  readonly access: AccessSetup
  readonly lifecycle: Lifecycle
  readonly context: (req: Request) => ItemsContext | Promise<ItemsContext>
}

/** One request's view of the services. */
export interface RequestContext {
  readonly collection: Collection
  readonly repository: ItemsRepository
  readonly versions: VersionsService
  /** The caller's access: their view of the schema and the rules of their writes. */
  readonly access: CallerAccess
  /** The caller's writes to the collection, with access rules, hooks and events. */
  readonly writer: ItemsWriter
  /** The request's query parameters as a typed Query, through the caller's view (parsed on first use). */
  query(): Promise<Query>
  /** 403 `FORBIDDEN` unless the caller may read the collection. */
  assertReadable(): void
  /** The written items as the caller may read them, shaped by the request's `fields`. */
  readBack(keys: readonly PrimaryKey[]): Promise<Item[]>
  /** The JSON body; a request without one is a 400. */
  body(): unknown
  /** Parses the `query` object of a by-query write, through the caller's view. */
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

/** The caller of this request, as the host's `context` option describes them. */
export async function callerContext(services: Services, req: Request): Promise<ItemsContext> {
  const context = await services.context(req)
  if (!isPlainObject(context)) throw new TypeError('express-items-router: the context option must answer an object')
  return context
}

/** The caller's writes to `collection`, with access rules, hooks and events. */
export const writerFor = (services: Services, collection: Collection, access: CallerAccess): ItemsWriter =>
  new ItemsWriter(collection, services.repository, services.validators.get(collection)!, services.lifecycle, access)

async function requestContext(services: Services, req: Request, collection: Collection): Promise<RequestContext> {
  const access = await CallerAccess.resolve(services.access, collection, await callerContext(services, req))
  const parser: ParserOptions = { ...services.parser, schema: access.view, variables: access.variables }
  let parsed: Promise<Query> | undefined
  const parse = async (): Promise<Query> => {
    const raw = readQueryString(req.originalUrl ?? req.url, services.queryString)
    const hooked = await services.lifecycle.before(
      collection,
      'beforeRead',
      { ...raw },
      { collection: collection.name, context: access.context, db: services.knex },
    )
    return parseQuery(hooked as RawQuery, collection, parser)
  }
  const query = (): Promise<Query> => (parsed ??= parse())
  return {
    collection,
    repository: services.repository,
    versions: services.versions,
    access,
    writer: writerFor(services, collection, access),
    query,
    assertReadable: () => {
      if (!access.canRead(collection)) throw new ForbiddenError()
    },
    readBack: async (keys) => {
      const { fields, scope } = await query()
      return services.repository.readByKeys(collection, keys, fields, scope)
    },
    body: () => readBody(req),
    selection: (raw) => parseSelection(raw, collection, parser),
  }
}

export function createRoute(services: Services): (handler: (collection: Collection) => ItemsHandler) => RequestHandler {
  return (pick) => (req, res, next) => {
    const collection = services.schema.collections.get(String(req.params.collection))
    if (!collection) {
      next(routeNotFound(req))
      return
    }
    requestContext(services, req, collection)
      .then((context) => pick(collection)(req, res, context))
      .catch(next)
  }
}
