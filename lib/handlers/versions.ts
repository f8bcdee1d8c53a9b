// /versions: list, read, create, rename, delete, save, compare and promote content versions. Versions hold
// whole drafts of items, so only callers with full access to a collection (read and update allowed without
// limits) see or manage its versions; to everyone else they do not exist.
import type { Request, RequestHandler, Response } from 'express'
import { CallerAccess, hasFullAccess } from '../access/caller-access'
import { ForbiddenError, NotFoundError } from '../errors'
import { isPlainObject } from '../is-plain-object'
import { parseQuery } from '../query/parse-query'
import type { FilterNode } from '../query/filter-node'
import { readQueryString } from '../query/read-query-string'
import type { Collection } from '../schema/collection'
import { openView } from '../query/schema-view'
import { both } from '../query/filter-node'
import type { ItemsContext } from '../types'
import type { Version } from '../versions/versions-service'
import { sendData, sendNoContent } from './envelope'
import { callerContext, readBody, writerFor, type Services } from './route'

type Handler = (req: Request, res: Response, context: ItemsContext) => Promise<void>

/** A version id from the URL; anything but a positive integer names no version. */
function versionId(req: Request): number {
  const id = Number(req.params.id)
  if (!Number.isSafeInteger(id) || id <= 0) throw new NotFoundError('Version not found.')
  return id
}

export function createVersionHandlers(services: Services): Record<string, RequestHandler> {
  const { versions, repository } = services
  const versionsView = openView({ collections: new Map([['versions', versions.collection]]) })
  const itemsView = openView(services.schema)
  // Callers who may manage versions see every field but hidden ones, as without access rules.
  const query = (req: Request, collection: Collection) => {
    const raw = readQueryString(req.originalUrl ?? req.url, services.queryString)
    return parseQuery(raw, collection, { ...services.parser, schema: collection === versions.collection ? versionsView : itemsView })
  }
  const mayManage = (collection: Collection, context: ItemsContext) => hasFullAccess(services.access, collection, context)
  /** The version, if the caller may manage its collection's versions; otherwise it does not exist for them. */
  const version = async (req: Request, context: ItemsContext): Promise<Version> => {
    const found = await versions.get(versionId(req))
    if (!(await mayManage(versions.versionedCollection(found.collection), context))) throw new NotFoundError('Version not found.')
    return found
  }
  /** The version as stored, read through the request's `fields`. */
  const answer = async (req: Request, res: Response, id: number): Promise<void> => {
    const [stored] = await repository.readByKeys(versions.collection, [id], query(req, versions.collection).fields)
    sendData(res, stored ?? null)
  }
  const mainItem = async (found: Version, req: Request) => {
    const collection = versions.versionedCollection(found.collection)
    const item = versions.itemKey(collection, found)
    const { fields } = query(req, collection)
    const [main] = await repository.readByKeys(collection, [item], fields)
    if (!main) throw new NotFoundError()
    return { collection, item, fields, main }
  }
  const handlers: Record<string, Handler> = {
    list: async (req, res, context) => {
      await versions.ready()
      const managed: string[] = []
      for (const collection of services.schema.collections.values()) {
        if (collection.versioning && (await mayManage(collection, context))) managed.push(collection.name)
      }
      const field = versions.collection.fields.find((each) => each.name === 'collection')!
      const scope: FilterNode = { kind: 'comparison', field, operator: '_in', value: managed }
      const parsed = query(req, versions.collection)
      const page = await repository.list(versions.collection, { ...parsed, scope, filter: both(scope, parsed.filter) })
      sendData(res, page.items, page.meta)
    },
    read: async (req, res, context) => {
      await versions.ready()
      await answer(req, res, (await version(req, context)).id)
    },
    create: async (req, res, context) => {
      const body = readBody(req)
      if (isPlainObject(body) && services.schema.collections.has(String(body.collection))) {
        const collection = versions.versionedCollection(body.collection)
        if (!(await mayManage(collection, context))) throw new ForbiddenError()
      }
      await answer(req, res, await versions.create(body))
    },
    rename: async (req, res, context) => {
      await versions.ready()
      const { id } = await version(req, context)
      await versions.rename(id, readBody(req))
      await answer(req, res, id)
    },
    remove: async (req, res, context) => {
      await versions.ready()
      await versions.remove((await version(req, context)).id)
      sendNoContent(res)
    },
    save: async (req, res, context) => {
      await versions.ready()
      const saved = await versions.save((await version(req, context)).id, readBody(req))
      const { main, fields } = await mainItem(saved, req)
      sendData(res, await versions.overlay(main, fields, saved.delta))
    },
    compare: async (req, res, context) => {
      await versions.ready()
      const found = await version(req, context)
      const { collection, item, main } = await mainItem(found, req)
      const mainHash = await versions.mainHash(collection, item)
      sendData(res, { outdated: found.hash !== mainHash, mainHash, current: found.delta ?? {}, main })
    },
    promote: async (req, res, context) => {
      await versions.ready()
      const { collection, item, changes } = await versions.promotion((await version(req, context)).id, readBody(req))
      // Through the collection's own write path: its hooks, validation and events apply as to any update.
      const access = await CallerAccess.resolve(services.access, collection, context)
      await writerFor(services, collection, access).update([{ keys: [item], data: changes }])
      sendData(res, item)
    },
  }
  return Object.fromEntries(
    Object.entries(handlers).map(([name, handler]) => [
      name,
      ((req, res, next) => {
        callerContext(services, req)
          .then((context) => handler(req, res, context))
          .catch(next)
      }) as RequestHandler,
    ]),
  )
}
