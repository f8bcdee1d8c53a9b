// What a /versions request works with: the caller, and what the version handlers share. Versions hold whole
// drafts of items, so only callers with full access to a collection (read and update allowed without limits)
// see or manage its versions; to everyone else they do not exist.
import type { Request, RequestHandler } from 'express'
import { CallerAccess, hasFullAccess } from '../access/caller-access'
import { InvalidPayloadError, NotFoundError } from '../errors'
import { parseQuery } from '../query/parse-query'
import type { ParserOptions } from '../query/parser-options'
import type { FieldNode, Query } from '../query/query'
import { readQueryString } from '../query/read-query-string'
import { openView } from '../query/schema-view'
import type { Collection } from '../schema/collection'
import type { Item, ItemsContext, PrimaryKey } from '../types'
import type { Version, VersionsService } from '../versions/versions-service'
import type { ItemsWriter } from '../writes/items-writer'
import { resolveCaller, routeNotFound } from './request'
import { route, type Handler } from './route'
import { writerFor, type Services } from './services'

/** The main item a version belongs to, read through the request's `fields`; for a draft of a new item, none. */
export type MainItem = {
  readonly collection: Collection
  readonly fields: readonly FieldNode[]
} & ({ readonly item: PrimaryKey; readonly main: Item } | { readonly item: null; readonly main: null })

export interface VersionsRequest {
  readonly caller: ItemsContext
  readonly versions: VersionsService
  readonly schema: Services['schema']
  /** The request's query parameters for the versions table or a versioned collection, as full access sees them. */
  query(collection: Collection): Query
  /** Whether the caller may manage the versions of `collection`. */
  mayManage(collection: Collection): Promise<boolean>
  /** The version the URL names; a 404 unless it exists and the caller may manage it. */
  version(): Promise<Version>
  /** The versions a body's key list names (`DELETE /versions`, `PATCH /versions`), each checked as `version()`. */
  versionsByKeys(keys: unknown): Promise<Version[]>
  /** The version as stored, read through the request's `fields`. */
  stored(id: number): Promise<Item | null>
  /** The main item of a version. */
  mainItem(version: Version): Promise<MainItem>
  /** The caller's writes to `collection`, with its access rules, hooks and events. */
  writer(collection: Collection): Promise<ItemsWriter>
}

export type VersionsHandler = Handler<VersionsRequest>

/** Largest id of the versions table's `increments` column on every database (PostgreSQL's `integer`). */
const LARGEST_VERSION_ID = 2_147_483_647

/** A version id from the URL or a body; anything but a positive integer the column can hold names no version. */
function versionId(raw: unknown): number {
  const id = typeof raw === 'number' || typeof raw === 'string' ? Number(raw) : NaN
  if (!Number.isSafeInteger(id) || id <= 0 || id > LARGEST_VERSION_ID) throw new NotFoundError('Version not found.')
  return id
}

async function versionsRequest(services: Services, req: Request): Promise<VersionsRequest> {
  const { versions, repository } = services
  // Without its table the router serves no /versions route, to anyone: a 404 before the caller is resolved.
  if (!(await versions.table.available())) throw routeNotFound(req)
  const caller = await resolveCaller(services.context, req)
  // Callers who may manage versions see every field but hidden ones, as without access rules.
  const parser = (collection: Collection): ParserOptions => ({
    ...services.parser,
    schema: openView(collection === versions.collection ? { collections: new Map([['versions', collection]]) } : services.schema),
  })
  const query = (collection: Collection): Query =>
    parseQuery(readQueryString(req.url, services.queryString), collection, parser(collection))
  const mayManage = (collection: Collection): Promise<boolean> => hasFullAccess(services.access, collection, caller)
  const manageable = async (id: number): Promise<Version> => {
    const found = await versions.get(id)
    if (!(await mayManage(versions.versionedCollection(found.collection)))) throw new NotFoundError('Version not found.')
    return found
  }
  return {
    caller,
    versions,
    schema: services.schema,
    query,
    mayManage,
    version: () => manageable(versionId(req.params.id)),
    versionsByKeys: async (keys) => {
      if (!Array.isArray(keys) || keys.length === 0) throw new InvalidPayloadError('"keys" must be a non-empty array of version ids')
      const found: Version[] = []
      for (const key of new Set(keys)) found.push(await manageable(versionId(key)))
      return found
    },
    stored: async (id) => {
      const [row] = await repository.readByKeys(versions.collection, [id], query(versions.collection).fields)
      return row === undefined ? null : versions.answered(row)
    },
    mainItem: async (version) => {
      const collection = versions.versionedCollection(version.collection)
      const item = versions.itemKey(collection, version)
      const { fields } = query(collection)
      if (item === null) return { collection, fields, item, main: null }
      const [main] = await repository.readByKeys(collection, [item], fields)
      if (!main) throw new NotFoundError()
      return { collection, item, fields, main }
    },
    writer: async (collection) => writerFor(services, collection, await CallerAccess.resolve(services.access, collection, caller)),
  }
}

/** A /versions route. */
export function versionsRoute(services: Services, handler: VersionsHandler): RequestHandler {
  return route((req) => versionsRequest(services, req), handler)
}
